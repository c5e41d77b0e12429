package dev.floe.flink;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.util.SimpleUserCodeClassLoader;
import org.apache.flink.util.UserCodeClassLoader;

/** Deserialization schemas opened outside a job, as a source would open them: for the format tests. */
public final class OpenedSchemas {
  private OpenedSchemas() {}

  /** {@code schema}, opened with an unregistered metric group and this class's loader. */
  public static <T extends DeserializationSchema<?>> T opened(T schema) throws Exception {
    schema.open(new DeserializationSchema.InitializationContext() {
      @Override
      public MetricGroup getMetricGroup() {
        return new UnregisteredMetricsGroup();
      }

      @Override
      public UserCodeClassLoader getUserCodeClassLoader() {
        return SimpleUserCodeClassLoader.create(OpenedSchemas.class.getClassLoader());
      }
    });
    return schema;
  }
}
