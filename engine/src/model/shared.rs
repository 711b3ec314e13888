//! [`SharedStr`]: a text of the model that shares the source file's memory.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

use super::Span;

/// An immutable string that is a slice of a shared text: the ids, names and expressions the
/// parser reads point into the file's text (shared with [`crate::source::Source`]) instead of
/// being copied, so a deploy allocates nothing for them and cloning one is a reference count.
/// A value that had to be unescaped, or one made in code, gets a text of its own.
///
/// Reads as a `str` (`Deref`, `Display`, comparisons with `str` and `String`); equality, order
/// and hash are the string's.
#[derive(Clone)]
pub struct SharedStr {
    text: Arc<str>,
    start: u32,
    end: u32,
}

impl SharedStr {
    /// The part `span` of `text` (a range of whole characters).
    pub fn slice(text: &Arc<str>, span: Span) -> Self {
        debug_assert!(text.get(span.start as usize..span.end as usize).is_some());
        SharedStr {
            text: Arc::clone(text),
            start: span.start,
            end: span.end,
        }
    }

    /// The string.
    pub fn as_str(&self) -> &str {
        &self.text[self.start as usize..self.end as usize]
    }
}

impl Deref for SharedStr {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for SharedStr {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for SharedStr {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl Default for SharedStr {
    fn default() -> Self {
        SharedStr::from("")
    }
}

impl From<&str> for SharedStr {
    fn from(value: &str) -> Self {
        SharedStr {
            text: Arc::from(value),
            start: 0,
            end: value.len() as u32,
        }
    }
}

impl From<String> for SharedStr {
    fn from(value: String) -> Self {
        let end = value.len() as u32;
        SharedStr {
            text: Arc::from(value),
            start: 0,
            end,
        }
    }
}

impl From<&String> for SharedStr {
    fn from(value: &String) -> Self {
        SharedStr::from(value.as_str())
    }
}

impl From<SharedStr> for String {
    fn from(value: SharedStr) -> Self {
        value.as_str().to_owned()
    }
}

impl From<&SharedStr> for String {
    fn from(value: &SharedStr) -> Self {
        value.as_str().to_owned()
    }
}

impl fmt::Debug for SharedStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for SharedStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl PartialEq for SharedStr {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for SharedStr {}

impl PartialOrd for SharedStr {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SharedStr {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for SharedStr {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

macro_rules! compare_with {
    ($($other:ty),*) => {$(
        impl PartialEq<$other> for SharedStr {
            fn eq(&self, other: &$other) -> bool {
                self.as_str() == AsRef::<str>::as_ref(other)
            }
        }
        impl PartialEq<SharedStr> for $other {
            fn eq(&self, other: &SharedStr) -> bool {
                AsRef::<str>::as_ref(self) == other.as_str()
            }
        }
    )*};
}

compare_with!(str, &str, String);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slice_reads_as_its_part_of_the_text() {
        let text: Arc<str> = Arc::from("<a id=\"Task_1\"/>");
        let id = SharedStr::slice(&text, Span { start: 7, end: 13 });
        assert_eq!(id, "Task_1");
        assert_eq!(id, SharedStr::from("Task_1"));
        assert_eq!(format!("{id} {id:?}"), "Task_1 \"Task_1\"");
        assert_eq!(String::from(id.clone()), "Task_1".to_owned());
        let earlier = SharedStr::from("A");
        assert!(earlier < id);
    }
}
