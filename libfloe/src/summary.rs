//! Footer facts of a finished Parquet file, in the shape Java needs to build
//! Iceberg metadata. Serialized as one JSON document (min/max as base64).

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use parquet::basic::Compression;
use parquet::file::metadata::{ColumnChunkMetaData, ParquetMetaData, RowGroupMetaData};
use serde::Serialize;

use crate::nan::NanCount;

/// Version of the summary document; bumped on incompatible changes.
pub const SUMMARY_VERSION: u32 = 1;

#[derive(Debug, Serialize)]
pub struct FileSummary {
    pub version: u32,
    pub num_rows: i64,
    /// Total bytes written to the sink, footer included.
    pub file_size: u64,
    pub row_groups: Vec<RowGroupSummary>,
    /// The file's Thrift `FileMetaData` exactly as written, base64.
    pub footer: String,
    /// NaN values per float/double leaf outside lists and maps (Parquet stats have none).
    pub nan_counts: Vec<NanCount>,
}

#[derive(Debug, Serialize)]
pub struct RowGroupSummary {
    /// Starting position of the row group (its first page), as Iceberg split offsets use.
    pub offset: i64,
    pub num_rows: i64,
    /// Uncompressed size of all column data, as the footer records it.
    pub total_byte_size: i64,
    pub compressed_size: i64,
    pub columns: Vec<ColumnChunkSummary>,
}

#[derive(Debug, Serialize)]
pub struct ColumnChunkSummary {
    /// Path of the leaf column in the Parquet schema (`a.list.element` style parts).
    pub path: Vec<String>,
    /// `PARQUET:field_id` of the leaf, when the schema carried one.
    pub field_id: Option<i32>,
    pub physical_type: String,
    pub compression: String,
    pub compressed_size: i64,
    pub uncompressed_size: i64,
    /// Number of values including nulls (Parquet's `num_values`).
    pub num_values: i64,
    pub null_count: Option<u64>,
    /// Min/max in Parquet's plain encoding, base64; absent without statistics.
    pub min: Option<String>,
    pub max: Option<String>,
    /// False when the bound was truncated (inexact).
    pub min_exact: bool,
    pub max_exact: bool,
}

impl FileSummary {
    pub fn from_metadata(metadata: &ParquetMetaData, file_size: u64, footer: Vec<u8>) -> Self {
        let row_groups: Vec<RowGroupSummary> = metadata
            .row_groups()
            .iter()
            .map(row_group_summary)
            .collect();
        Self {
            version: SUMMARY_VERSION,
            num_rows: metadata.file_metadata().num_rows(),
            file_size,
            row_groups,
            footer: BASE64.encode(footer),
            nan_counts: Vec::new(),
        }
    }

    pub fn with_nan_counts(mut self, nan_counts: Vec<NanCount>) -> Self {
        self.nan_counts = nan_counts;
        self
    }

    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("summary serializes")
    }
}

fn row_group_summary(rg: &RowGroupMetaData) -> RowGroupSummary {
    let offset = rg.columns().first().map(chunk_start).unwrap_or(4);
    RowGroupSummary {
        offset,
        num_rows: rg.num_rows(),
        total_byte_size: rg.total_byte_size(),
        compressed_size: rg.compressed_size(),
        columns: rg.columns().iter().map(column_summary).collect(),
    }
}

/// The first byte of a column chunk: its dictionary page when it has one.
fn chunk_start(c: &ColumnChunkMetaData) -> i64 {
    match c.dictionary_page_offset() {
        Some(dict) if dict > 0 && dict < c.data_page_offset() => dict,
        _ => c.data_page_offset(),
    }
}

/// The codec's Parquet name (`ZSTD`). The footer records no level, so none is shown.
fn codec_name(codec: Compression) -> String {
    let full = codec.to_string();
    full.split('(').next().unwrap_or(&full).to_string()
}

fn column_summary(c: &ColumnChunkMetaData) -> ColumnChunkSummary {
    let info = c.column_descr().self_type().get_basic_info();
    let stats = c.statistics();
    let encode = |b: Option<&[u8]>| b.map(|b| BASE64.encode(b));
    ColumnChunkSummary {
        path: c.column_path().parts().to_vec(),
        field_id: info.has_id().then(|| info.id()),
        physical_type: c.column_type().to_string(),
        compression: codec_name(c.compression()),
        compressed_size: c.compressed_size(),
        uncompressed_size: c.uncompressed_size(),
        num_values: c.num_values(),
        null_count: stats.and_then(|s| s.null_count_opt()),
        min: encode(stats.and_then(|s| s.min_bytes_opt())),
        max: encode(stats.and_then(|s| s.max_bytes_opt())),
        min_exact: stats.is_some_and(|s| s.min_bytes_opt().is_some() && s.min_is_exact()),
        max_exact: stats.is_some_and(|s| s.max_bytes_opt().is_some() && s.max_is_exact()),
    }
}
