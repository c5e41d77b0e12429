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

  /** Writers behind, budget full of decoded rows: a batch given back is freed, not kept. */
  @Test
  void withoutRoomABatchGivenBackIsFreed() {
    Semaphore budget = new Semaphore(0);
    try (BatchPool pool = new BatchPool(budget, false)) {
      SinkBatch first = pool.take(CAPACITY, 16);
      pool.give(first);
      assertThrows(IllegalStateException.class, first.messages::capacityBytes, "freed");
      SinkBatch next = pool.take(CAPACITY, 16);
      assertNotSame(first, next, "a new batch");
      assertEquals(0, budget.availablePermits());
      next.close();
    }
  }

  @Test
  void trimmingFreesTheSparesAndGivesTheirRoomBack() {
    Semaphore budget = new Semaphore(10 * CAPACITY);
    try (BatchPool pool = new BatchPool(budget, false)) {
      SinkBatch batch = pool.take(CAPACITY, 16);
      pool.give(batch);
      pool.trim();
      assertEquals(10 * CAPACITY, budget.availablePermits());
      assertThrows(IllegalStateException.class, batch.messages::capacityBytes);
    }
  }
}
