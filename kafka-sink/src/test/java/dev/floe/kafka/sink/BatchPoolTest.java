package dev.floe.kafka.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.Semaphore;
import org.junit.jupiter.api.Test;

class BatchPoolTest {
  private static final int CAPACITY = 4096;

  @Test
  void aSpareHoldsItsCapacityInTheBudgetUntilTaken() {
    Semaphore budget = new Semaphore(10 * CAPACITY);
    try (BatchPool pool = new BatchPool(budget, false)) {
      SinkBatch batch = pool.take(CAPACITY, 16);
      pool.give(batch);
      assertEquals(9 * CAPACITY, budget.availablePermits());
      assertSame(batch, pool.take(CAPACITY, 16));
      assertEquals(10 * CAPACITY, budget.availablePermits());
      batch.close();
    }
  }

  /** Writers behind, budget full of decoded rows: one batch is reused, not allocated anew. */
  @Test
  void withoutRoomOneBatchIsKeptAsTheReserveAndTheNextIsFreed() {
    Semaphore budget = new Semaphore(0);
    try (BatchPool pool = new BatchPool(budget, false)) {
      SinkBatch first = pool.take(CAPACITY, 16);
      SinkBatch second = pool.take(CAPACITY, 16);
      assertNotSame(first, second);
      pool.give(first);
      pool.give(second);
      assertThrows(IllegalStateException.class, second.messages::capacityBytes, "the second was freed");
      assertSame(first, pool.take(CAPACITY, 16), "the reserve is filled next");
      assertEquals(0, budget.availablePermits(), "the reserve holds no room of the budget");
      first.close();
    }
  }

  @Test
  void closingThePoolFreesTheReserve() {
    Semaphore budget = new Semaphore(0);
    SinkBatch batch;
    try (BatchPool pool = new BatchPool(budget, false)) {
      batch = pool.take(CAPACITY, 16);
      pool.give(batch);
    }
    assertThrows(IllegalStateException.class, batch.messages::capacityBytes);
  }
}
