package dev.floe.bench.connect;

import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

/**
 * Hands every record to a task that drops it. Timed to "all records put" in the same worker as the
 * Iceberg sinks, it is the floor no sink connector can go below on that worker: Connect's consumer,
 * converters, SinkRecords and put calls. Its config accepts (and ignores) any keys, so the
 * benchmark can give it the sinks' config unchanged.
 */
public class DiscardingSinkConnector extends SinkConnector {
  private Map<String, String> config;

  @Override
  public void start(Map<String, String> props) {
    config = Map.copyOf(props);
  }

  @Override
  public Class<? extends Task> taskClass() {
    return DiscardingTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    return Collections.nCopies(maxTasks, config);
  }

  @Override
  public void stop() {}

  @Override
  public ConfigDef config() {
    return new ConfigDef();
  }

  @Override
  public String version() {
    return "1";
  }

  /** Drops what it is given; Connect's own metrics count it. */
  public static class DiscardingTask extends SinkTask {
    @Override
    public String version() {
      return "1";
    }

    @Override
    public void start(Map<String, String> props) {}

    @Override
    public void put(Collection<SinkRecord> records) {}

    @Override
    public void stop() {}
  }
}
