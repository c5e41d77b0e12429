use serde::Deserialize;

use crate::error::{FloeError, Result};

/// The partition spec as JSON, versioned like the writer config:
/// `{"version": 1, "fields": [{"name": "id_bucket", "source_id": 1, "transform": "bucket[4]"}]}`.
/// Transforms are written as Iceberg writes them: `identity`, `bucket[N]`,
/// `truncate[W]`, `year`, `month`, `day`, `hour`, `void`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartitionSpec {
    pub version: u32,
    pub fields: Vec<PartitionFieldSpec>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartitionFieldSpec {
    pub name: String,
    pub source_id: i32,
    pub transform: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transform {
    Identity,
    Bucket(u32),
    Truncate(u32),
    Year,
    Month,
    Day,
    Hour,
    Void,
}

impl PartitionSpec {
    pub const VERSION: u32 = 1;

    pub fn from_json(json: &[u8]) -> Result<Self> {
        let spec: PartitionSpec = serde_json::from_slice(json).map_err(|e| {
            FloeError::invalid_argument(format!("invalid partition spec JSON: {e}"))
        })?;
        if spec.version != Self::VERSION {
            return Err(FloeError::invalid_argument(format!(
                "partition spec version {} is not supported (this library reads version {})",
                spec.version,
                Self::VERSION
            )));
        }
        Ok(spec)
    }
}

impl Transform {
    pub fn parse(text: &str) -> Result<Self> {
        let parameter = |prefix: &str| -> Option<Result<u32>> {
            let inner = text.strip_prefix(prefix)?.strip_suffix(']')?;
            Some(match inner.parse::<u32>() {
                Ok(n) if n > 0 => Ok(n),
                _ => Err(FloeError::invalid_argument(format!(
                    "transform '{text}' needs a positive integer parameter"
                ))),
            })
        };
        if let Some(n) = parameter("bucket[") {
            return Ok(Transform::Bucket(n?));
        }
        if let Some(w) = parameter("truncate[") {
            return Ok(Transform::Truncate(w?));
        }
        Ok(match text {
            "identity" => Transform::Identity,
            "year" => Transform::Year,
            "month" => Transform::Month,
            "day" => Transform::Day,
            "hour" => Transform::Hour,
            "void" => Transform::Void,
            other => {
                return Err(FloeError::invalid_argument(format!(
                    "unknown partition transform '{other}'"
                )))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_transform() {
        assert_eq!(
            Transform::parse("bucket[16]").unwrap(),
            Transform::Bucket(16)
        );
        assert_eq!(
            Transform::parse("truncate[3]").unwrap(),
            Transform::Truncate(3)
        );
        for (text, t) in [
            ("identity", Transform::Identity),
            ("year", Transform::Year),
            ("month", Transform::Month),
            ("day", Transform::Day),
            ("hour", Transform::Hour),
            ("void", Transform::Void),
        ] {
            assert_eq!(Transform::parse(text).unwrap(), t);
        }
        assert!(Transform::parse("bucket[0]").is_err());
        assert!(Transform::parse("bucket[x]").is_err());
        assert!(Transform::parse("zorder").is_err());
    }

    #[test]
    fn rejects_other_versions() {
        let err = PartitionSpec::from_json(br#"{"version": 2, "fields": []}"#).unwrap_err();
        assert!(err.to_string().contains("version 2"), "{err}");
    }
}
