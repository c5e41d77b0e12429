//! Iceberg partitioning of Arrow batches: a [`PartitionSpec`] (the JSON the caller
//! sends) names source columns by field id and a transform each; a [`Partitioner`]
//! applies the transforms to whole columns ([`columns`]) and regroups a batch's rows
//! so each partition's rows are one contiguous slice ([`PartitionedBatch`]).

pub mod columns;
mod spec;
mod split;

pub use spec::{PartitionFieldSpec, PartitionSpec, Transform};
pub use split::{PartitionedBatch, Partitioner};
