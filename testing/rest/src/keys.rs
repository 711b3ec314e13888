//! Keys as Zeebe makes them: the partition id in the high bits (`partition << 51`), a counter
//! in the low 51 bits; on the wire a JSON string of digits ("Java long serialized as string").

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// How many low bits a key's counter takes.
pub const KEY_BITS: u32 = 51;

/// A Zeebe key (process instance, job, element instance, ...). Serialized as a string of
/// digits; read from one (a JSON number is refused, as the gateway refuses it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Key(pub u64);

impl Key {
    /// The key of the `n`-th entity of a partition.
    pub fn encode(partition: u32, n: u64) -> Key {
        Key((u64::from(partition) << KEY_BITS) + n)
    }

    /// The partition the key was made on.
    pub fn partition(self) -> u32 {
        (self.0 >> KEY_BITS) as u32
    }

    /// The counter part of the key.
    pub fn counter(self) -> u64 {
        self.0 & ((1u64 << KEY_BITS) - 1)
    }
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A key that does not read: not digits, or out of a Java long's range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyError(pub String);

impl std::fmt::Display for KeyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "'{}' is not a key (a string of digits)", self.0)
    }
}

impl std::error::Error for KeyError {}

impl std::str::FromStr for Key {
    type Err = KeyError;

    fn from_str(text: &str) -> Result<Key, KeyError> {
        // A Java long: at most 19 digits and below 2^63; keys are never negative.
        if text.is_empty() || text.len() > 19 || !text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(KeyError(text.to_owned()));
        }
        match text.parse::<u64>() {
            Ok(n) if n <= i64::MAX as u64 => Ok(Key(n)),
            _ => Err(KeyError(text.to_owned())),
        }
    }
}

impl Serialize for Key {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Key, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl From<u64> for Key {
    fn from(n: u64) -> Key {
        Key(n)
    }
}

impl From<Key> for u64 {
    fn from(k: Key) -> u64 {
        k.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_one_starts_where_zeebe_starts() {
        let key = Key::encode(1, 1);
        assert_eq!(key.0, 2_251_799_813_685_249);
        assert_eq!((key.partition(), key.counter()), (1, 1));
    }

    #[test]
    fn keys_are_strings_on_the_wire() {
        let key = Key::encode(1, 5);
        assert_eq!(serde_json::to_string(&key).unwrap(), "\"2251799813685253\"");
        let back: Key = serde_json::from_str("\"2251799813685253\"").unwrap();
        assert_eq!(back, key);
        assert!(serde_json::from_str::<Key>("2251799813685253").is_err());
        for bad in [
            "",
            "-1",
            "12a",
            "99999999999999999999",
            "9223372036854775808",
        ] {
            assert!(bad.parse::<Key>().is_err(), "{bad}");
        }
    }
}
