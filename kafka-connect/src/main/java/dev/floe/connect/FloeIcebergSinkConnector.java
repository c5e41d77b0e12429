package dev.floe.connect;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;

/**
 * Apache Iceberg's Kafka Connect sink, on floe: the same config keys as {@code
 * org.apache.iceberg.connect.IcebergSinkConnector}, JSON decoded and Parquet encoded natively, and
 * each task committing its own files exactly once with its partitions' offsets in the tables
 * (no control topic). Keys floe does not support fail {@link #validate} by name.
 */
public class FloeIcebergSinkConnector extends SinkConnector {
  private Map<String, String> props;

  @Override
  public String version() {
    return Version.VERSION;
  }

  @Override
  public void start(Map<String, String> props) {
    new ConnectorSettings(props); // throws ConfigException naming every problem
    this.props = Map.copyOf(props);
  }

  @Override
  public Class<? extends Task> taskClass() {
    return FloeIcebergSinkTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    List<Map<String, String>> configs = new ArrayList<>();
    for (int i = 0; i < maxTasks; i++) {
      Map<String, String> task = new HashMap<>(props);
      task.put(ConnectorSettings.TASK_INDEX, Integer.toString(i));
      configs.add(task);
    }
    return configs;
  }

  @Override
  public void stop() {}

  @Override
  public ConfigDef config() {
    return ConnectorSettings.CONFIG_DEF;
  }

  /** Connect's checks of each key, then floe's: each problem is reported on a key it names. */
  @Override
  public Config validate(Map<String, String> connectorConfigs) {
    Config config = super.validate(connectorConfigs);
    List<String> problems = ConnectorSettings.problems(connectorConfigs);
    if (problems.isEmpty()) {
      return config;
    }
    List<ConfigValue> values = new ArrayList<>(config.configValues());
    for (String problem : problems) {
      String key = problem.startsWith("'") ? problem.substring(1, problem.indexOf('\'', 1)) : ConnectorSettings.TABLES;
      ConfigValue value = values.stream().filter(v -> v.name().equals(key)).findFirst().orElse(null);
      if (value == null) {
        value = new ConfigValue(key, connectorConfigs.get(key), List.of(), new ArrayList<>());
        values.add(value);
      }
      value.addErrorMessage(problem);
    }
    return new Config(values);
  }
}
