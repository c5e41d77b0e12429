package dev.floe.flink.table;

import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.flink.FlinkCatalogFactory;
import org.apache.iceberg.util.PropertyUtil;

/**
 * {@code CREATE CATALOG lake WITH ('type' = 'floe-iceberg', ...)}: Iceberg's Flink catalog with
 * its options ({@code catalog-type} or {@code catalog-impl}, {@code uri}, {@code warehouse},
 * {@code default-database}, {@code base-namespace}, {@code cache-enabled}, ...), whose tables are
 * written by floe ({@link FloeIcebergTableFactory}) and read by Iceberg's source. A catalog made
 * for Iceberg's {@code 'type' = 'iceberg'} switches by changing the type.
 */
public final class FloeFlinkCatalogFactory extends FlinkCatalogFactory {
  public static final String IDENTIFIER = "floe-iceberg";

  @Override
  public String factoryIdentifier() {
    return IDENTIFIER;
  }

  @Override
  protected org.apache.flink.table.catalog.Catalog createCatalog(
      String name, Map<String, String> properties, Configuration hadoopConf) {
    Namespace base =
        properties.containsKey(BASE_NAMESPACE)
            ? Namespace.of(properties.get(BASE_NAMESPACE).split("\\."))
            : Namespace.empty();
    long cacheExpiration =
        PropertyUtil.propertyAsLong(
            properties, CatalogProperties.CACHE_EXPIRATION_INTERVAL_MS, CatalogProperties.CACHE_EXPIRATION_INTERVAL_MS_OFF);
    if (cacheExpiration == 0) {
      throw new IllegalArgumentException(CatalogProperties.CACHE_EXPIRATION_INTERVAL_MS + " may not be 0");
    }
    return new FloeFlinkCatalog(
        name,
        properties.getOrDefault(DEFAULT_DATABASE, DEFAULT_DATABASE_NAME),
        base,
        FloeIcebergTableFactory.catalogLoader(name, properties),
        properties,
        PropertyUtil.propertyAsBoolean(properties, CatalogProperties.CACHE_ENABLED, CatalogProperties.CACHE_ENABLED_DEFAULT),
        cacheExpiration);
  }
}
