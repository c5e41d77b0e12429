//! Writer configuration: one versioned JSON blob crosses the boundary instead of
//! dozens of arguments. Absent keys take the defaults, which live in one place for both
//! sides: `writer-defaults.json` at the crate root, compiled in here and packaged into the
//! Java facade (`ParquetWriterConfig`), whose record components have these names in
//! camelCase.

use parquet::basic::{BrotliLevel, Compression, GzipLevel, ZstdLevel};
use parquet::file::properties::{
    EnabledStatistics, WriterProperties, WriterPropertiesBuilder, WriterVersion,
    DEFAULT_WRITE_BATCH_SIZE,
};
use serde::Deserialize;

use crate::error::{FloeError, Result};

/// The only configuration version this build understands.
pub const CONFIG_VERSION: u32 = 2;

/// Every setting's default, as the Java side reads them too.
const DEFAULTS_JSON: &str = include_str!("../writer-defaults.json");

/// Parquet writer settings. Defaults follow Iceberg's table-property defaults.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WriterConfig {
    pub version: u32,
    /// `zstd` (default), `snappy`, `gzip`, `lz4`, `brotli` or `uncompressed`.
    pub codec: String,
    /// Codec level; `None` means the codec's own default (zstd: 3).
    pub level: Option<i32>,
    /// A row group is closed once its estimated encoded size reaches this (128 MiB).
    pub row_group_bytes: u64,
    /// Target data page size in bytes (1 MiB).
    pub page_bytes: u64,
    /// Rows per data page (20,000, Iceberg's `write.parquet.page-row-limit` default). Best
    /// effort: parquet-rs checks it between the mini-batches it writes a column in (up to
    /// 1,024 values, or a whole write of a column without nulls), so a page stays under
    /// twice the limit.
    pub page_row_limit: u64,
    /// Dictionary page size limit in bytes (2 MiB); beyond it a column falls back to plain.
    pub dictionary_page_bytes: u64,
    /// Dictionary encoding (default on). Columns where it does not pay on the first
    /// batch's sample are written plain, as parquet-java decides after its first page.
    pub dictionary: bool,
    /// `none`, `chunk` or `page` (default): where min/max/null-count statistics are kept.
    pub statistics: String,
    /// Max length of min/max statistics; `None` keeps them whole (marked exact).
    pub statistics_truncate_length: Option<u64>,
    /// Leaf columns, by `PARQUET:field_id`, written without statistics (Iceberg's
    /// `write.parquet.stats-enabled.column.<name> = false`). Ids no leaf has are ignored.
    pub statistics_off_field_ids: Vec<i32>,
    /// Leaf columns, by `PARQUET:field_id`, written with a bloom filter in each row group
    /// (Iceberg's `write.parquet.bloom-filter-enabled.column.<name> = true`). Ids no leaf has
    /// are ignored.
    pub bloom_filter_columns: Vec<BloomFilterColumn>,
    /// The footer's `created_by`; `None`: `floe version x.y.z`.
    pub created_by: Option<String>,
    /// Batches are held (not copied) until this many rows (65,536) are waiting, then
    /// encoded one column at a time, which keeps each column's compressor in the CPU cache
    /// across its pages (see `writer::runs`). 0 encodes every batch as it arrives.
    pub column_run_rows: u64,
    /// ... or until the held batches take this much Arrow memory (32 MiB).
    pub column_run_bytes: u64,
    /// Threads that encode a run's columns (1: the calling thread alone). Columns are
    /// independent, so the file is byte for byte the same for any count.
    pub encode_threads: u32,
    /// With one encode thread: a run is encoded on a shared background thread while the
    /// caller goes on handing over batches (at most one run per file in flight), so a burst
    /// of runs does not stall the caller. The file is byte for byte the same.
    pub encode_ahead: bool,
}

/// A bloom filter's settings for one leaf column.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BloomFilterColumn {
    pub field_id: i32,
    /// The false positive probability the filter is sized for (Iceberg's default: 0.01).
    pub fpp: f64,
    /// The distinct values expected in a row group; `None`: parquet-rs's default. The filter is
    /// sized for it, then folded down to what the values written need at `fpp`.
    pub ndv: Option<u64>,
}

impl Default for WriterConfig {
    fn default() -> Self {
        serde_json::from_str(DEFAULTS_JSON)
            .expect("writer-defaults.json is a complete writer config")
    }
}

impl WriterConfig {
    /// Parses a config blob: the keys it has over the defaults; an empty blob means all
    /// defaults.
    pub fn from_json(bytes: &[u8]) -> Result<Self> {
        if bytes.is_empty() {
            return Ok(Self::default());
        }
        let invalid =
            |e: serde_json::Error| FloeError::invalid_argument(format!("writer config: {e}"));
        let given: serde_json::Value = serde_json::from_slice(bytes).map_err(invalid)?;
        let serde_json::Value::Object(given) = given else {
            return Err(FloeError::invalid_argument(
                "writer config: expected a JSON object",
            ));
        };
        let mut merged: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(DEFAULTS_JSON).expect("writer-defaults.json is an object");
        merged.extend(given);
        let config: WriterConfig =
            serde_json::from_value(serde_json::Value::Object(merged)).map_err(invalid)?;
        if config.version != CONFIG_VERSION {
            return Err(FloeError::invalid_argument(format!(
                "writer config: version {} is not supported (this library reads version {CONFIG_VERSION})",
                config.version
            )));
        }
        Ok(config)
    }

    /// The footer's `created_by`.
    pub fn created_by(&self) -> String {
        self.created_by
            .clone()
            .unwrap_or_else(|| format!("floe version {}", env!("CARGO_PKG_VERSION")))
    }

    pub fn compression(&self) -> Result<Compression> {
        let level = self.level;
        let bad_level = |e| FloeError::invalid_argument(format!("writer config: level: {e}"));
        let no_level = |codec: Compression| match level {
            None => Ok(codec),
            Some(l) => Err(FloeError::invalid_argument(format!(
                "writer config: codec {} takes no level (got {l})",
                self.codec
            ))),
        };
        match self.codec.to_ascii_lowercase().as_str() {
            "zstd" => Ok(Compression::ZSTD(
                ZstdLevel::try_new(level.unwrap_or(3)).map_err(bad_level)?,
            )),
            "gzip" => {
                let l = level.map(u32::try_from).transpose().map_err(|_| {
                    FloeError::invalid_argument("writer config: gzip level must be >= 0")
                })?;
                Ok(Compression::GZIP(match l {
                    Some(l) => GzipLevel::try_new(l).map_err(bad_level)?,
                    None => GzipLevel::default(),
                }))
            }
            "brotli" => {
                let l = level.map(u32::try_from).transpose().map_err(|_| {
                    FloeError::invalid_argument("writer config: brotli level must be >= 0")
                })?;
                Ok(Compression::BROTLI(match l {
                    Some(l) => BrotliLevel::try_new(l).map_err(bad_level)?,
                    None => BrotliLevel::default(),
                }))
            }
            "snappy" => no_level(Compression::SNAPPY),
            "lz4" | "lz4_raw" => no_level(Compression::LZ4_RAW),
            "uncompressed" | "none" => no_level(Compression::UNCOMPRESSED),
            other => Err(FloeError::invalid_argument(format!(
                "writer config: unknown compression codec '{other}' \
                 (expected zstd, snappy, gzip, lz4, brotli or uncompressed)"
            ))),
        }
    }

    fn statistics(&self) -> Result<EnabledStatistics> {
        match self.statistics.to_ascii_lowercase().as_str() {
            "none" => Ok(EnabledStatistics::None),
            "chunk" => Ok(EnabledStatistics::Chunk),
            "page" => Ok(EnabledStatistics::Page),
            other => Err(FloeError::invalid_argument(format!(
                "writer config: unknown statistics level '{other}' (expected none, chunk or page)"
            ))),
        }
    }

    fn positive(name: &str, value: u64) -> Result<usize> {
        if value == 0 {
            return Err(FloeError::invalid_argument(format!(
                "writer config: {name} must be > 0"
            )));
        }
        usize::try_from(value)
            .map_err(|_| FloeError::invalid_argument(format!("writer config: {name} too large")))
    }

    /// The parquet-rs properties for this config. Row groups are bounded by bytes
    /// only (no row-count cap), as Iceberg's `write.parquet.row-group-size-bytes`.
    pub fn writer_properties(&self) -> Result<WriterProperties> {
        Ok(self.writer_properties_builder()?.build())
    }

    /// When held batches are encoded and when row groups close.
    pub(crate) fn run_limits(&self) -> Result<crate::writer::RunLimits> {
        let size = |name: &str, value: u64| {
            usize::try_from(value).map_err(|_| {
                FloeError::invalid_argument(format!("writer config: {name} too large"))
            })
        };
        Ok(crate::writer::RunLimits {
            row_group_bytes: Self::positive("row_group_bytes", self.row_group_bytes)?,
            run_rows: size("column_run_rows", self.column_run_rows)?,
            run_bytes: size("column_run_bytes", self.column_run_bytes)?,
            encode_threads: Self::positive("encode_threads", self.encode_threads.into())?,
            encode_ahead: self.encode_ahead,
        })
    }

    /// [`Self::writer_properties`] before `build()`, for per-column adjustments.
    pub fn writer_properties_builder(&self) -> Result<WriterPropertiesBuilder> {
        let truncate = self
            .statistics_truncate_length
            .map(|n| Self::positive("statistics_truncate_length", n))
            .transpose()?;
        let page_rows = Self::positive("page_row_limit", self.page_row_limit)?;
        Ok(WriterProperties::builder()
            .set_writer_version(WriterVersion::PARQUET_1_0)
            .set_compression(self.compression()?)
            .set_max_row_group_row_count(None)
            .set_max_row_group_bytes(Some(Self::positive(
                "row_group_bytes",
                self.row_group_bytes,
            )?))
            .set_data_page_size_limit(Self::positive("page_bytes", self.page_bytes)?)
            .set_data_page_row_count_limit(page_rows)
            // Mini-batches no longer than a page, so a small row limit is not overshot by
            // parquet-rs's default batch of 1,024 values.
            .set_write_batch_size(page_rows.min(DEFAULT_WRITE_BATCH_SIZE))
            .set_dictionary_page_size_limit(Self::positive(
                "dictionary_page_bytes",
                self.dictionary_page_bytes,
            )?)
            .set_dictionary_enabled(self.dictionary)
            .set_statistics_enabled(self.statistics()?)
            .set_statistics_truncate_length(truncate)
            .set_created_by(self.created_by()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_blob_is_defaults() {
        let c = WriterConfig::from_json(b"").unwrap();
        assert_eq!(c, WriterConfig::default());
        assert_eq!(
            c.compression().unwrap(),
            Compression::ZSTD(ZstdLevel::try_new(3).unwrap())
        );
    }

    #[test]
    fn partial_blob_keeps_other_defaults() {
        let c = WriterConfig::from_json(br#"{"version":2,"codec":"snappy"}"#).unwrap();
        assert_eq!(c.compression().unwrap(), Compression::SNAPPY);
        assert_eq!(c.row_group_bytes, 128 * 1024 * 1024);
    }

    #[test]
    fn rejects_unknown_version_key_and_codec() {
        let e = WriterConfig::from_json(br#"{"version":1}"#).unwrap_err();
        assert!(e.message.contains("version 1"), "{}", e.message);
        let e = WriterConfig::from_json(br#"{"version":2,"compression":"zstd"}"#).unwrap_err();
        assert!(e.message.contains("compression"), "{}", e.message);
        let c = WriterConfig::from_json(br#"{"version":2,"codec":"lzo"}"#).unwrap();
        assert!(c.compression().unwrap_err().message.contains("'lzo'"));
        let c = WriterConfig::from_json(br#"{"version":2,"level":99}"#).unwrap();
        assert!(c.writer_properties().is_err());
        let c = WriterConfig::from_json(br#"{"version":2,"row_group_bytes":0}"#).unwrap();
        assert!(c
            .writer_properties()
            .unwrap_err()
            .message
            .contains("row_group_bytes"));
    }

    #[test]
    fn the_defaults_file_sets_every_setting() {
        let all: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(DEFAULTS_JSON).unwrap();
        assert_eq!(all.len(), 17, "one default per WriterConfig field: {all:?}");
        let c = WriterConfig::default();
        assert_eq!(c.version, CONFIG_VERSION);
        assert_eq!(
            c.created_by(),
            format!("floe version {}", env!("CARGO_PKG_VERSION"))
        );
        assert_eq!((c.page_bytes, c.page_row_limit), (1024 * 1024, 20_000));
    }
}
