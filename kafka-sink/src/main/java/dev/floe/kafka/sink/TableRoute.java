package dev.floe.kafka.sink;

import java.util.regex.Pattern;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * One routing rule: records of topics matching {@code topics} go to {@code table}; with a route
 * field, only those whose field value also matches {@code values}.
 */
public record TableRoute(Pattern topics, Pattern values, TableIdentifier table) {
  public static TableRoute topic(String topic, TableIdentifier table) {
    return new TableRoute(Pattern.compile(Pattern.quote(topic)), null, table);
  }

  /** Records whose route field value matches {@code valueRegex} (any topic the sink reads). */
  public static TableRoute value(String valueRegex, TableIdentifier table) {
    return new TableRoute(Pattern.compile(".*"), Pattern.compile(valueRegex), table);
  }

  boolean matchesTopic(String topic) {
    return topics.matcher(topic).matches();
  }

  boolean matchesValue(String value) {
    return values == null || (value != null && values.matcher(value).matches());
  }
}
