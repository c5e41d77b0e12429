use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Mutex, PoisonError};

use arrow_array::cast::AsArray;
use arrow_array::types::{ByteArrayType, Date32Type, Int32Type, Int64Type};
use arrow_array::{
    make_array, new_null_array, Array, ArrayRef, ArrowPrimitiveType, GenericByteArray,
    PrimitiveArray, RecordBatch, RecordBatchOptions, StructArray, UInt32Array,
};
use arrow_buffer::NullBuffer;
use arrow_data::ArrayData;
use arrow_schema::{DataType, Field, Fields, Schema};
use arrow_select::take::take;
use parquet::arrow::PARQUET_FIELD_ID_META_KEY;

use super::{columns, PartitionSpec, Transform};
use crate::error::{FloeError, Result};

/// Splits batches of one schema by one partition spec.
#[derive(Debug)]
pub struct Partitioner {
    fields: Vec<ResolvedField>,
    partition_fields: Fields,
    /// Per top-level column, an all-null array kept across batches: a group whose rows are
    /// all null in that column gets a slice of it instead of a take.
    null_columns: Mutex<Vec<Option<ArrayRef>>>,
}

#[derive(Debug)]
struct ResolvedField {
    transform: Transform,
    /// Child indices from the batch's top-level column down through structs.
    path: Vec<usize>,
    column: String,
}

/// A batch regrouped by partition: `groups[i]` holds the rows of partition `i`, and
/// `partitions` row `i` holds its partition values. Laid end to end, the groups are the
/// input reordered: `ranges[i]` is group `i`'s (offset, length) in that order, and its
/// row `p` is row `order[p]` of the input (`order` is `None` when the input was not
/// reordered). Within a partition, rows keep their input order.
#[derive(Debug)]
pub struct PartitionedBatch {
    pub groups: Vec<RecordBatch>,
    pub partitions: StructArray,
    pub ranges: Vec<(usize, usize)>,
    pub order: Option<Vec<u32>>,
}

impl PartitionedBatch {
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The rows of partition `index`.
    pub fn group(&self, index: usize) -> Result<&RecordBatch> {
        self.groups.get(index).ok_or_else(|| {
            FloeError::invalid_argument(format!(
                "partition group {index} does not exist (the batch has {})",
                self.groups.len()
            ))
        })
    }

    /// The rows of all groups together.
    pub fn num_rows(&self) -> usize {
        self.ranges.iter().map(|&(_, length)| length).sum()
    }
}

impl Partitioner {
    /// Resolves each spec field's source column (by `PARQUET:field_id`, through structs)
    /// and checks its transform applies to the column's type.
    pub fn new(schema: &Schema, spec: &PartitionSpec) -> Result<Self> {
        let mut fields = Vec::with_capacity(spec.fields.len());
        let mut partition_fields = Vec::with_capacity(spec.fields.len());
        for field in &spec.fields {
            let transform = Transform::parse(&field.transform)?;
            let (path, source) = find_field(schema.fields(), field.source_id).ok_or_else(|| {
                FloeError::invalid_argument(format!(
                    "partition field '{}': no column has field id {}",
                    field.name, field.source_id
                ))
            })?;
            // Applying to an empty column checks the transform fits the type up front.
            columns::apply(
                transform,
                &arrow_array::new_empty_array(source.data_type()),
                source.name(),
            )
            .map_err(|e| {
                FloeError::invalid_argument(format!("partition field '{}': {e}", field.name))
            })?;
            partition_fields.push(Field::new(
                &field.name,
                columns::result_type(transform, source.data_type()),
                true,
            ));
            fields.push(ResolvedField {
                transform,
                path,
                column: source.name().clone(),
            });
        }
        Ok(Partitioner {
            fields,
            partition_fields: partition_fields.into(),
            null_columns: Mutex::new(Vec::new()),
        })
    }

    /// The schema of [`PartitionedBatch::partitions`].
    pub fn partition_fields(&self) -> &Fields {
        &self.partition_fields
    }

    /// Regroups `batch` by partition, in order of each partition's first row.
    /// With one partition (or an unpartitioned spec) the batch is not copied.
    pub fn split(&self, batch: &RecordBatch) -> Result<PartitionedBatch> {
        let values = self
            .fields
            .iter()
            .map(|f| columns::apply(f.transform, &column_at(batch, &f.path)?, &f.column))
            .collect::<Result<Vec<_>>>()?;
        let rows = batch.num_rows();
        let (group_of_row, first_rows) = group_rows(&values, rows)?;
        let firsts = UInt32Array::from(first_rows);
        let partition_columns = values
            .iter()
            .map(|v| take(v.as_ref(), &firsts, None))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let groups = firsts.len();
        let partitions = if self.partition_fields.is_empty() {
            // An unpartitioned spec: one group (if any rows) with an empty tuple.
            StructArray::new_empty_fields(groups, None)
        } else {
            StructArray::try_new(self.partition_fields.clone(), partition_columns, None)?
        };
        if groups <= 1 {
            let ranges = if rows == 0 { vec![] } else { vec![(0, rows)] };
            return Ok(PartitionedBatch {
                groups: ranges.iter().map(|_| batch.clone()).collect(),
                partitions,
                ranges,
                order: None,
            });
        }
        // Counting sort of row indices by group, then each group's rows taken.
        let mut counts = vec![0usize; groups];
        for &g in &group_of_row {
            counts[g as usize] += 1;
        }
        let mut ranges = Vec::with_capacity(groups);
        let mut next = Vec::with_capacity(groups);
        let mut offset = 0;
        for &count in &counts {
            ranges.push((offset, count));
            next.push(offset);
            offset += count;
        }
        let mut order = vec![0u32; rows];
        for (row, &g) in group_of_row.iter().enumerate() {
            order[next[g as usize]] = row as u32;
            next[g as usize] += 1;
        }
        let groups = self.regroup(batch, &order, &ranges)?;
        Ok(PartitionedBatch {
            groups,
            partitions,
            ranges,
            order: Some(order),
        })
    }

    /// Each group's rows of `batch` (`ranges` into `order`), column by column. A column is
    /// taken once in group order and sliced per group, unless some group's rows are all null
    /// in it: then each group is taken alone, and an all-null group gets a slice of a null
    /// array kept for the column. When a topic mixes record kinds in nullable structs
    /// (Nexmark's person, auction and bid), a partition's rows are often all null in most of
    /// them, and a take gathers every child's values and validity row by row.
    fn regroup(
        &self,
        batch: &RecordBatch,
        order: &[u32],
        ranges: &[(usize, usize)],
    ) -> Result<Vec<RecordBatch>> {
        let indices = UInt32Array::from(order.to_vec());
        let mut columns: Vec<Vec<ArrayRef>> =
            vec![Vec::with_capacity(batch.num_columns()); ranges.len()];
        for (i, column) in batch.columns().iter().enumerate() {
            let all_null: Vec<bool> = ranges
                .iter()
                .map(|&(offset, length)| {
                    null_at_all(column.as_ref(), &order[offset..offset + length])
                })
                .collect();
            if all_null.contains(&true) {
                for ((group, &(offset, length)), null) in
                    columns.iter_mut().zip(ranges).zip(all_null)
                {
                    group.push(if null {
                        self.nulls(i, column.data_type(), length)
                    } else {
                        take(column.as_ref(), &indices.slice(offset, length), None)?
                    });
                }
            } else {
                let taken = take(column.as_ref(), &indices, None)?;
                for (group, &(offset, length)) in columns.iter_mut().zip(ranges) {
                    group.push(taken.slice(offset, length));
                }
            }
        }
        columns
            .into_iter()
            .zip(ranges)
            .map(|(group, &(_, length))| {
                let options = RecordBatchOptions::new().with_row_count(Some(length));
                Ok(RecordBatch::try_new_with_options(
                    batch.schema(),
                    group,
                    &options,
                )?)
            })
            .collect()
    }

    /// `len` nulls of column `index`'s type: a slice of the array kept for the column, made
    /// (larger) when it is missing, too short or of another type.
    fn nulls(&self, index: usize, data_type: &DataType, len: usize) -> ArrayRef {
        let mut kept = self
            .null_columns
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if kept.len() <= index {
            kept.resize(index + 1, None);
        }
        match &kept[index] {
            Some(nulls) if nulls.len() >= len && nulls.data_type() == data_type => {
                nulls.slice(0, len)
            }
            _ => {
                let nulls = new_null_array(data_type, len.next_power_of_two());
                let out = nulls.slice(0, len);
                kept[index] = Some(nulls);
                out
            }
        }
    }
}

/// Whether `column` is null at each of `rows` (by its validity bitmap; a column without
/// one, e.g. a dictionary whose values hold the nulls, counts as not null, so is taken).
fn null_at_all(column: &dyn Array, rows: &[u32]) -> bool {
    match column.nulls() {
        Some(nulls) if !rows.is_empty() => rows.iter().all(|&row| nulls.is_null(row as usize)),
        _ => false,
    }
}

fn field_id(field: &Field) -> Option<i32> {
    field
        .metadata()
        .get(PARQUET_FIELD_ID_META_KEY)?
        .parse()
        .ok()
}

/// Depth-first search for the field with `id`, descending into structs only
/// (Iceberg partitions on primitives outside lists and maps).
fn find_field(fields: &Fields, id: i32) -> Option<(Vec<usize>, &Field)> {
    for (i, field) in fields.iter().enumerate() {
        if field_id(field) == Some(id) {
            return Some((vec![i], field));
        }
        if let DataType::Struct(children) = field.data_type() {
            if let Some((mut path, found)) = find_field(children, id) {
                path.insert(0, i);
                return Some((path, found));
            }
        }
    }
    None
}

/// The column at `path`; a value under a null struct is null, as Iceberg's accessors read it.
fn column_at(batch: &RecordBatch, path: &[usize]) -> Result<ArrayRef> {
    let mut array = batch.column(path[0]).clone();
    for &child in &path[1..] {
        let parent = array.as_struct();
        let column = parent.column(child).clone();
        let nulls = NullBuffer::union(parent.nulls(), column.nulls());
        let data = column.to_data().into_builder().nulls(nulls).build()?;
        array = make_array(data);
    }
    Ok(array)
}

/// Assigns each row a group number (in order of first appearance) by the tuple of its
/// partition values; returns the group of every row and the first row of every group.
fn group_rows(values: &[ArrayRef], rows: usize) -> Result<(Vec<u32>, Vec<u32>)> {
    if values.is_empty() || rows == 0 {
        return Ok((vec![0; rows], if rows == 0 { vec![] } else { vec![0] }));
    }
    if let [value] = values {
        let single = group_by_small_range(value.as_ref(), rows)
            .or_else(|| group_by_one_byte_column(value.as_ref(), rows));
        if let Some(grouping) = single {
            return Ok((grouping.group_of_row, grouping.first_rows));
        }
    }
    let keys = values
        .iter()
        .map(|v| KeyColumn::new(v.to_data()))
        .collect::<Result<Vec<_>>>()?;
    let grouping = if KeyColumn::packs_into_u128(&keys) {
        group_by_packed_keys(&keys, rows)
    } else {
        group_by_key_bytes(&keys, rows)
    };
    Ok((grouping.group_of_row, grouping.first_rows))
}

/// Buckets, dates, hours, ints: the whole tuple is one integer, compared as such.
fn group_by_packed_keys(keys: &[KeyColumn], rows: usize) -> Grouping {
    let mut grouping = Grouping::new(rows);
    let mut groups = GroupKeys::<u128>::default();
    for row in 0..rows {
        let key = keys
            .iter()
            .fold(0u128, |key, column| column.pack_key(row, key));
        grouping.add(row, &mut groups, &key);
    }
    grouping
}

/// Values of one integer key further apart than this take the general paths.
const SMALL_RANGE: i64 = 4096;

/// One integer key whose values in the batch lie within [`SMALL_RANGE`] (buckets, days,
/// hours, small identities): each row's group is read from a table indexed by its value, with
/// no key to build, compare or hash. `None` for other keys and wider ranges.
fn group_by_small_range(values: &dyn Array, rows: usize) -> Option<Grouping> {
    match values.data_type() {
        DataType::Int32 => small_range(values.as_primitive::<Int32Type>(), rows),
        DataType::Date32 => small_range(values.as_primitive::<Date32Type>(), rows),
        DataType::Int64 => small_range(values.as_primitive::<Int64Type>(), rows),
        _ => None,
    }
}

fn small_range<T>(array: &PrimitiveArray<T>, rows: usize) -> Option<Grouping>
where
    T: ArrowPrimitiveType,
    T::Native: Into<i64>,
{
    let values = array.values();
    let bounds = |(lo, hi): (i64, i64), v: T::Native| {
        let v = v.into();
        (lo.min(v), hi.max(v))
    };
    let (min, max) = match array.nulls().filter(|nulls| nulls.null_count() > 0) {
        None => values.iter().copied().fold((i64::MAX, i64::MIN), bounds),
        Some(nulls) => values
            .iter()
            .zip(nulls.iter())
            .filter_map(|(&v, valid)| valid.then_some(v))
            .fold((i64::MAX, i64::MIN), bounds),
    };
    let span = if min > max {
        0 // no value: every row is null
    } else {
        max.checked_sub(min).filter(|span| *span < SMALL_RANGE)? as usize + 1
    };
    // Slot `span` stands for null.
    let mut group_of_slot = vec![u32::MAX; span + 1];
    let mut grouping = Grouping::new(rows);
    let nulls = array.nulls();
    for (row, &value) in values.iter().enumerate() {
        let slot = match nulls {
            Some(nulls) if nulls.is_null(row) => span,
            _ => (value.into() - min) as usize,
        };
        let mut group = group_of_slot[slot];
        if group == u32::MAX {
            group = grouping.first_rows.len() as u32;
            group_of_slot[slot] = group;
            grouping.first_rows.push(row as u32);
        }
        grouping.group_of_row.push(group);
    }
    Some(grouping)
}

/// One string or binary key (identity partitions): each row's value is compared in place,
/// with no key built per row. `None` for other types.
fn group_by_one_byte_column(values: &dyn Array, rows: usize) -> Option<Grouping> {
    match values.data_type() {
        DataType::Utf8 => Some(group_by_values(values.as_string::<i32>(), rows)),
        DataType::LargeUtf8 => Some(group_by_values(values.as_string::<i64>(), rows)),
        DataType::Binary => Some(group_by_values(values.as_binary::<i32>(), rows)),
        DataType::LargeBinary => Some(group_by_values(values.as_binary::<i64>(), rows)),
        _ => None,
    }
}

fn group_by_values<T: ByteArrayType>(array: &GenericByteArray<T>, rows: usize) -> Grouping {
    let mut grouping = Grouping::new(rows);
    let mut groups = GroupKeys::<Option<&[u8]>>::default();
    for row in 0..rows {
        let key: Option<&[u8]> = array.is_valid(row).then(|| array.value(row).as_ref());
        grouping.add(row, &mut groups, &key);
    }
    grouping
}

/// Any tuple (strings, binary, wide fixed values) as bytes.
fn group_by_key_bytes(keys: &[KeyColumn], rows: usize) -> Grouping {
    let mut grouping = Grouping::new(rows);
    let mut groups = GroupKeys::<Vec<u8>>::default();
    let mut key = Vec::with_capacity(32);
    for row in 0..rows {
        key.clear();
        for column in keys {
            column.append_key(row, &mut key);
        }
        grouping.add(row, &mut groups, key.as_slice());
    }
    grouping
}

/// The group of every row so far, and the first row of every group.
struct Grouping {
    group_of_row: Vec<u32>,
    first_rows: Vec<u32>,
}

impl Grouping {
    fn new(rows: usize) -> Self {
        Grouping {
            group_of_row: Vec::with_capacity(rows),
            first_rows: Vec::new(),
        }
    }

    #[inline]
    fn add<K, Q>(&mut self, row: usize, groups: &mut GroupKeys<K>, key: &Q)
    where
        K: Borrow<Q> + Eq + Hash,
        Q: ToOwned<Owned = K> + Eq + Hash + ?Sized,
    {
        let group = groups.get_or_insert(key, self.first_rows.len() as u32);
        if group as usize == self.first_rows.len() {
            self.first_rows.push(row as u32);
        }
        self.group_of_row.push(group);
    }
}

/// Groups seen so far by key. A batch usually falls into a few partitions (buckets, days), and
/// comparing a row's key with each of them is cheaper than hashing it, so the first
/// [`GroupKeys::SCANNED`] groups are kept in a list; past that, in a hash map.
struct GroupKeys<K> {
    listed: Vec<(K, u32)>,
    hashed: HashMap<K, u32>,
}

impl<K> Default for GroupKeys<K> {
    fn default() -> Self {
        GroupKeys {
            listed: Vec::new(),
            hashed: HashMap::new(),
        }
    }
}

impl<K: Eq + Hash> GroupKeys<K> {
    const SCANNED: usize = 8;

    /// The group of `key`, or `next` (now the group of `key`) if it is new.
    #[inline]
    fn get_or_insert<Q>(&mut self, key: &Q, next: u32) -> u32
    where
        K: Borrow<Q>,
        Q: ToOwned<Owned = K> + Eq + Hash + ?Sized,
    {
        if let Some((_, group)) = self.listed.iter().find(|(k, _)| k.borrow() == key) {
            return *group;
        }
        if self.listed.len() < Self::SCANNED {
            self.listed.push((key.to_owned(), next));
            return next;
        }
        if let Some(&group) = self.hashed.get(key) {
            return group;
        }
        self.hashed.insert(key.to_owned(), next);
        next
    }
}

/// Reads one row's value of a partition column as bytes for the grouping key:
/// a null marker, then the value's fixed-width bytes or length-prefixed bytes.
struct KeyColumn {
    data: ArrayData,
    layout: KeyLayout,
}

enum KeyLayout {
    Null,
    Fixed(usize),
    Offsets32,
    Offsets64,
}

impl KeyColumn {
    fn new(data: ArrayData) -> Result<Self> {
        let layout = match data.data_type() {
            DataType::Null => KeyLayout::Null,
            DataType::Utf8 | DataType::Binary => KeyLayout::Offsets32,
            DataType::LargeUtf8 | DataType::LargeBinary => KeyLayout::Offsets64,
            DataType::FixedSizeBinary(width) => KeyLayout::Fixed(*width as usize),
            DataType::Boolean => KeyLayout::Fixed(0),
            other => match other.primitive_width() {
                Some(width) => KeyLayout::Fixed(width),
                None => {
                    return Err(FloeError::invalid_argument(format!(
                        "cannot partition by a value of type {other}"
                    )))
                }
            },
        };
        Ok(KeyColumn { data, layout })
    }

    /// Bytes this column takes in a packed key: a null flag and the value's fixed width.
    fn packed_width(&self) -> Option<usize> {
        match self.layout {
            KeyLayout::Null => Some(1),
            KeyLayout::Fixed(0) => Some(2),
            KeyLayout::Fixed(width) => Some(1 + width),
            KeyLayout::Offsets32 | KeyLayout::Offsets64 => None,
        }
    }

    /// Whether every column's null flag and value fit together in 16 bytes.
    fn packs_into_u128(columns: &[KeyColumn]) -> bool {
        columns
            .iter()
            .try_fold(0usize, |total, c| Some(total + c.packed_width()?))
            .is_some_and(|total| total <= 16)
    }

    /// `key` shifted past this column's slot, with the slot holding the row's null flag and
    /// value bytes (all zero for a null): one integer per distinct tuple, as [`Self::append_key`]
    /// gives one byte string. Only for columns [`Self::packed_width`] accepts.
    #[inline]
    fn pack_key(&self, row: usize, key: u128) -> u128 {
        let width = self.packed_width().expect("a fixed-width key column");
        let shifted = if width >= 16 { 0 } else { key << (8 * width) };
        if self.data.is_null(row) || matches!(self.layout, KeyLayout::Null) {
            return shifted;
        }
        let i = self.data.offset() + row;
        let values = self.data.buffers();
        let value = match self.layout {
            KeyLayout::Fixed(0) => {
                let bits = values[0].as_slice();
                ((bits[i / 8] >> (i % 8)) & 1) as u128
            }
            KeyLayout::Fixed(width) => {
                let mut bytes = [0u8; 16];
                bytes[..width].copy_from_slice(&values[0].as_slice()[i * width..(i + 1) * width]);
                u128::from_le_bytes(bytes)
            }
            KeyLayout::Null | KeyLayout::Offsets32 | KeyLayout::Offsets64 => unreachable!(),
        };
        shifted | value << 8 | 1
    }

    fn append_key(&self, row: usize, key: &mut Vec<u8>) {
        if self.data.is_null(row) || matches!(self.layout, KeyLayout::Null) {
            key.push(0);
            return;
        }
        key.push(1);
        let i = self.data.offset() + row;
        let values = self.data.buffers();
        match self.layout {
            KeyLayout::Null => {}
            KeyLayout::Fixed(0) => {
                let bits = values[0].as_slice();
                key.push((bits[i / 8] >> (i % 8)) & 1);
            }
            KeyLayout::Fixed(width) => {
                key.extend_from_slice(&values[0].as_slice()[i * width..(i + 1) * width]);
            }
            KeyLayout::Offsets32 => {
                let offsets = values[0].typed_data::<i32>();
                let (start, end) = (offsets[i] as usize, offsets[i + 1] as usize);
                key.extend_from_slice(&((end - start) as u64).to_le_bytes());
                key.extend_from_slice(&values[1].as_slice()[start..end]);
            }
            KeyLayout::Offsets64 => {
                let offsets = values[0].typed_data::<i64>();
                let (start, end) = (offsets[i] as usize, offsets[i + 1] as usize);
                key.extend_from_slice(&((end - start) as u64).to_le_bytes());
                key.extend_from_slice(&values[1].as_slice()[start..end]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Int32Array, Int64Array, StringArray};
    use std::collections::HashMap as Map;
    use std::sync::Arc;

    fn id_field(name: &str, data_type: DataType, id: i32) -> Field {
        Field::new(name, data_type, true).with_metadata(Map::from([(
            PARQUET_FIELD_ID_META_KEY.to_string(),
            id.to_string(),
        )]))
    }

    fn spec(json: &str) -> PartitionSpec {
        PartitionSpec::from_json(json.as_bytes()).unwrap()
    }

    #[test]
    fn packed_and_byte_keys_group_rows_alike() {
        use arrow_array::{BooleanArray, Date32Array, Int16Array, NullArray};
        // Few distinct values per column (so groups repeat), nulls, and sliced arrays (an
        // offset into the buffers), over tuples from 2 to 16 packed bytes.
        let mut state = 0x853c_49e6_748f_ea9bu64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let rows = 3000;
        let mut column = |kind: u64| -> ArrayRef {
            let pick: Vec<u64> = (0..rows + 5).map(|_| next()).collect();
            let valid = |r: u64| !r.is_multiple_of(7);
            let array: ArrayRef = match kind {
                0 => Arc::new(Int32Array::from_iter(
                    pick.iter()
                        .map(|&r| valid(r).then_some((r >> 8) as i32 % 5 - 2)),
                )),
                1 => {
                    Arc::new(Int64Array::from_iter(pick.iter().map(|&r| {
                        valid(r).then_some((r >> 8) as i64 % 3 * (i64::MIN / 2))
                    })))
                }
                2 => Arc::new(BooleanArray::from_iter(
                    pick.iter().map(|&r| valid(r).then_some(r & 256 != 0)),
                )),
                3 => Arc::new(Date32Array::from_iter(
                    pick.iter()
                        .map(|&r| valid(r).then_some((r >> 8) as i32 % 4 - 19_000)),
                )),
                4 => Arc::new(Int16Array::from_iter(
                    pick.iter()
                        .map(|&r| valid(r).then_some((r >> 8) as i16 % 3)),
                )),
                _ => Arc::new(NullArray::new(pick.len())),
            };
            array.slice(5, rows)
        };
        for kinds in [
            vec![0],
            vec![1],
            vec![2],
            vec![5],
            vec![0, 3],
            vec![1, 2, 4],
            vec![3, 0, 5, 2],
            vec![1, 0, 2],
            vec![4, 0, 0, 2],
        ] {
            let keys: Vec<KeyColumn> = kinds
                .iter()
                .map(|&k| KeyColumn::new(column(k).to_data()).unwrap())
                .collect();
            assert!(KeyColumn::packs_into_u128(&keys), "{kinds:?}");
            let packed = group_by_packed_keys(&keys, rows);
            let bytes = group_by_key_bytes(&keys, rows);
            assert_eq!(packed.group_of_row, bytes.group_of_row, "{kinds:?}");
            assert_eq!(packed.first_rows, bytes.first_rows, "{kinds:?}");
            if kinds != [5] {
                assert!(
                    packed.first_rows.len() > 1,
                    "{kinds:?}: the data has several groups"
                );
            }
        }
        // One integer key over a narrow range: the table gives the same groups; a wide range
        // (kind 1 spans i64) falls back.
        for kind in [0, 3, 1] {
            let values = column(kind);
            let keys = [KeyColumn::new(values.to_data()).unwrap()];
            let packed = group_by_packed_keys(&keys, rows);
            match group_by_small_range(values.as_ref(), rows) {
                Some(table) => {
                    assert_ne!(kind, 1, "a range wider than SMALL_RANGE falls back");
                    assert_eq!(table.group_of_row, packed.group_of_row, "kind {kind}");
                    assert_eq!(table.first_rows, packed.first_rows, "kind {kind}");
                }
                None => assert_eq!(kind, 1, "kind {kind} has a narrow range"),
            }
        }
        let edge = Int32Array::from(vec![Some(i32::MAX), None, Some(i32::MAX - 4095), None]);
        let table = group_by_small_range(&edge, 4).expect("a span of 4096 values");
        assert_eq!(table.group_of_row, [0, 1, 2, 1]);
        assert_eq!(table.first_rows, [0, 1, 2]);
        let all_null = group_by_small_range(&Int32Array::from(vec![None, None]), 2).unwrap();
        assert_eq!(all_null.group_of_row, [0, 0]);
        assert_eq!(all_null.first_rows, [0]);
        let wide = Int32Array::from(vec![i32::MIN, i32::MAX]);
        assert!(group_by_small_range(&wide, 2).is_none());
        // One string or binary key: compared in place, the same groups as the byte path.
        let words: Vec<Option<String>> = (0..rows as u64)
            .map(|i| {
                let r = i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40;
                (r % 9 != 0).then(|| "ab".repeat((r >> 4) as usize % 4))
            })
            .collect();
        let strings: ArrayRef = Arc::new(StringArray::from(words.clone()));
        let binary: ArrayRef = Arc::new(arrow_array::LargeBinaryArray::from_iter(
            words.iter().map(|w| w.as_deref().map(str::as_bytes)),
        ));
        for values in [strings.slice(3, rows - 3), binary.slice(3, rows - 3)] {
            let keys = [KeyColumn::new(values.to_data()).unwrap()];
            let bytes = group_by_key_bytes(&keys, values.len());
            let in_place = group_by_one_byte_column(values.as_ref(), values.len()).unwrap();
            assert_eq!(in_place.group_of_row, bytes.group_of_row);
            assert_eq!(in_place.first_rows, bytes.first_rows);
            assert_eq!(
                in_place.first_rows.len(),
                5,
                "4 lengths (one empty) and null"
            );
        }
        // A tuple wider than 16 bytes, or a string, takes the byte path.
        let wide: Vec<KeyColumn> = [1, 1, 0]
            .iter()
            .map(|&k| KeyColumn::new(column(k).to_data()).unwrap())
            .collect();
        assert!(!KeyColumn::packs_into_u128(&wide));
        let text = KeyColumn::new(StringArray::from(vec!["a"]).to_data()).unwrap();
        assert!(!KeyColumn::packs_into_u128(&[text]));
    }

    #[test]
    fn rows_regroup_into_contiguous_partitions() {
        let schema = Arc::new(Schema::new(vec![
            id_field("id", DataType::Int64, 1),
            id_field("name", DataType::Utf8, 2),
        ]));
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(Int64Array::from(vec![1, 2, 3, 4, 5, 6])),
                Arc::new(StringArray::from(vec![
                    Some("a"),
                    None,
                    Some("a"),
                    Some("b"),
                    None,
                    Some("a"),
                ])),
            ],
        )
        .unwrap();
        let partitioner = Partitioner::new(
            &schema,
            &spec(
                r#"{"version":1,"fields":[{"name":"name","source_id":2,"transform":"identity"}]}"#,
            ),
        )
        .unwrap();
        let split = partitioner.split(&batch).unwrap();
        assert_eq!(split.ranges, [(0, 3), (3, 2), (5, 1)]);
        let names: Vec<_> = split
            .partitions
            .column(0)
            .as_string::<i32>()
            .iter()
            .collect();
        assert_eq!(names, [Some("a"), None, Some("b")]);
        let ids = |g: usize| -> Vec<i64> {
            split
                .group(g)
                .unwrap()
                .column(0)
                .as_primitive::<arrow_array::types::Int64Type>()
                .values()
                .to_vec()
        };
        assert_eq!(ids(0), [1, 3, 6]);
        assert_eq!(ids(1), [2, 5]);
        assert_eq!(ids(2), [4]);
        assert_eq!(split.order.as_deref(), Some(&[0, 2, 5, 1, 4, 3][..]));
    }

    /// More partitions than the grouping scans in a list, so later ones are found by hash.
    #[test]
    fn many_partitions_keep_first_appearance_order() {
        let schema = Arc::new(Schema::new(vec![id_field("k", DataType::Int32, 1)]));
        // 20 keys and nulls, each coming back several times in a scrambled order.
        let keys: Vec<Option<i32>> = (0..400)
            .map(|i| ((i * 7919) % 21 != 20).then_some((i * 7919) % 21))
            .collect();
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![Arc::new(Int32Array::from(keys.clone()))],
        )
        .unwrap();
        let partitioner = Partitioner::new(
            &schema,
            &spec(r#"{"version":1,"fields":[{"name":"k","source_id":1,"transform":"identity"}]}"#),
        )
        .unwrap();
        let split = partitioner.split(&batch).unwrap();
        let mut first_seen: Vec<Option<i32>> = Vec::new();
        for k in &keys {
            if !first_seen.contains(k) {
                first_seen.push(*k);
            }
        }
        let values: Vec<_> = split
            .partitions
            .column(0)
            .as_primitive::<arrow_array::types::Int32Type>()
            .iter()
            .collect();
        assert_eq!(values, first_seen);
        for (g, key) in first_seen.iter().enumerate() {
            let rows = split.group(g).unwrap();
            let want = keys.iter().filter(|k| *k == key).count();
            assert_eq!(rows.num_rows(), want, "group {g}");
            let column = rows
                .column(0)
                .as_primitive::<arrow_array::types::Int32Type>();
            assert!(
                column.iter().all(|v| v == *key),
                "group {g} holds only {key:?}"
            );
        }
    }

    #[test]
    fn nested_sources_are_null_under_a_null_parent() {
        let inner = Fields::from(vec![id_field("x", DataType::Int32, 3)]);
        let schema = Arc::new(Schema::new(vec![id_field(
            "s",
            DataType::Struct(inner.clone()),
            2,
        )]));
        let structs = StructArray::try_new(
            inner,
            vec![Arc::new(Int32Array::from(vec![7, 7]))],
            Some(NullBuffer::from(vec![true, false])),
        )
        .unwrap();
        let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(structs)]).unwrap();
        let partitioner = Partitioner::new(
            &schema,
            &spec(r#"{"version":1,"fields":[{"name":"x","source_id":3,"transform":"identity"}]}"#),
        )
        .unwrap();
        let split = partitioner.split(&batch).unwrap();
        let xs: Vec<_> = split
            .partitions
            .column(0)
            .as_primitive::<arrow_array::types::Int32Type>()
            .iter()
            .collect();
        assert_eq!(xs, [Some(7), None]);
    }

    #[test]
    fn unknown_sources_and_bad_transforms_are_named() {
        let schema = Schema::new(vec![id_field("price", DataType::Float64, 1)]);
        let missing = Partitioner::new(
            &schema,
            &spec(r#"{"version":1,"fields":[{"name":"p","source_id":9,"transform":"identity"}]}"#),
        )
        .unwrap_err();
        assert!(missing.to_string().contains("field id 9"), "{missing}");
        let wrong = Partitioner::new(
            &schema,
            &spec(r#"{"version":1,"fields":[{"name":"p","source_id":1,"transform":"bucket[2]"}]}"#),
        )
        .unwrap_err();
        assert!(wrong.to_string().contains("'price'"), "{wrong}");
    }

    #[test]
    fn an_unpartitioned_spec_gives_one_group_with_an_empty_tuple() {
        let schema = Arc::new(Schema::new(vec![id_field("id", DataType::Int64, 1)]));
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![Arc::new(Int64Array::from(vec![1, 2, 3]))],
        )
        .unwrap();
        let partitioner = Partitioner::new(&schema, &spec(r#"{"version":1,"fields":[]}"#)).unwrap();
        let split = partitioner.split(&batch).unwrap();
        assert_eq!(split.ranges, [(0, 3)]);
        assert_eq!(split.partitions.len(), 1);
        assert!(split.order.is_none(), "one group: the batch is not copied");
    }

    #[test]
    fn an_empty_batch_has_no_groups() {
        let schema = Arc::new(Schema::new(vec![id_field("id", DataType::Int64, 1)]));
        let batch = RecordBatch::new_empty(schema.clone());
        let partitioner = Partitioner::new(
            &schema,
            &spec(r#"{"version":1,"fields":[{"name":"b","source_id":1,"transform":"bucket[4]"}]}"#),
        )
        .unwrap();
        let split = partitioner.split(&batch).unwrap();
        assert!(split.is_empty());
        assert_eq!(split.partitions.len(), 0);
    }
}
