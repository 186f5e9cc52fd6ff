//! JSON text → jaq values, sharing the text's buffer.
//!
//! [`parse`] turns a knowledge file into the [`Val`] the extraction program
//! reads, through serde_json's parser (which reports `line:column` errors)
//! and a visitor of our own. jaq-json's own serde visitor copies every string
//! into a fresh allocation; this one makes each string without escapes (in
//! knowledge files, nearly all of them: every key, id, hint and the long
//! section bodies) a slice of the file's buffer, shared by reference count,
//! so a string costs no copy and no allocation of its bytes. Strings with
//! escapes are decoded into their own buffer, as before. The values are
//! exactly those of `serde_json::from_str::<Val>`: same numbers, same object
//! key order, the last of duplicate keys wins in the first one's place.

use bytes::Bytes;
use jaq_json::{Map, Num, Val};
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// Parses `text`, which must be a view of `buffer` (as `str`), as one JSON document.
///
/// # Errors
/// serde_json's error for text that is not exactly one JSON value.
pub fn parse(buffer: &Bytes, text: &str) -> serde_json::Result<Val> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Shared { buffer }.deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// The visitor: builds one value, slicing strings out of `buffer` where it can.
#[derive(Clone, Copy)]
struct Shared<'b> {
    buffer: &'b Bytes,
}

impl<'de> DeserializeSeed<'de> for Shared<'_> {
    type Value = Val;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Val, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Shared<'_> {
    type Value = Val;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Val, E> {
        Ok(Val::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Val, E> {
        Ok(Val::Num(Num::from_integral(v)))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Val, E> {
        Ok(Val::Num(Num::from_integral(v)))
    }

    fn visit_i128<E>(self, v: i128) -> Result<Val, E> {
        Ok(Val::Num(Num::from_integral(v)))
    }

    fn visit_u128<E>(self, v: u128) -> Result<Val, E> {
        Ok(Val::Num(Num::from_integral(v)))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Val, E> {
        Ok(Val::Num(Num::Float(v)))
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Val, E> {
        // serde_json lends a string without escapes straight from the text,
        // that is, from `buffer`: take the same bytes as a shared slice.
        let start = (v.as_ptr() as usize).wrapping_sub(self.buffer.as_ptr() as usize);
        match start.checked_add(v.len()) {
            Some(end) if end <= self.buffer.len() => {
                Ok(Val::utf8_str(self.buffer.slice(start..end)))
            }
            _ => Ok(Val::utf8_str(Bytes::copy_from_slice(v.as_bytes()))),
        }
    }

    fn visit_str<E>(self, v: &str) -> Result<Val, E> {
        Ok(Val::utf8_str(Bytes::copy_from_slice(v.as_bytes())))
    }

    fn visit_string<E>(self, v: String) -> Result<Val, E> {
        Ok(Val::utf8_str(v.into_bytes()))
    }

    fn visit_none<E>(self) -> Result<Val, E> {
        Ok(Val::Null)
    }

    fn visit_unit<E>(self) -> Result<Val, E> {
        Ok(Val::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Val, D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Val, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Val::Arr(items.into()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Val, A::Error> {
        let mut entries =
            Map::with_capacity_and_hasher(map.size_hint().unwrap_or(0), Default::default());
        while let Some(key) = map.next_key_seed(self)? {
            let value = map.next_value_seed(self)?;
            entries.insert(key, value);
        }
        Ok(Val::obj(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same values as jaq-json's own serde visitor, for every kind of JSON value.
    #[test]
    fn same_values_as_jaq_json() {
        let cases = [
            r#"{"id":"a","title":"タイトル","hints":["x","y\"z","\u00e9"],"n":[1,-2,3.5,1e300,18446744073709551616],"b":[true,false,null],"o":{}}"#,
            r#"{"dup":1,"k":2,"dup":3}"#,
            r#""\ud83d\ude00 escaped""#,
            "[]",
            "  17  ",
            r#"{"nested":{"a":[{"b":"c"}]}}"#,
        ];
        for case in cases {
            let buffer = Bytes::copy_from_slice(case.as_bytes());
            let text = std::str::from_utf8(&buffer).expect("UTF-8");
            let ours = parse(&buffer, text).expect("valid JSON");
            let theirs: Val = serde_json::from_str(case).expect("valid JSON");
            assert_eq!(ours, theirs, "{case}");
            assert_eq!(ours.to_string(), theirs.to_string(), "{case}");
        }
    }

    /// Escape-free strings share the buffer; escaped ones do not need to.
    #[test]
    fn plain_strings_are_slices_of_the_buffer() {
        let buffer = Bytes::from_static(br#"["plain","esc\naped"]"#);
        let text = std::str::from_utf8(&buffer).expect("UTF-8");
        let Val::Arr(items) = parse(&buffer, text).expect("valid JSON") else {
            panic!("not an array")
        };
        let Val::TStr(plain) = &items[0] else {
            panic!("not a string")
        };
        let inside = buffer.as_ptr_range();
        assert!(inside.contains(&plain.as_ptr()));
        let Val::TStr(escaped) = &items[1] else {
            panic!("not a string")
        };
        assert_eq!(&escaped[..], b"esc\naped");
    }

    #[test]
    fn errors_are_serde_json_errors() {
        for bad in ["", "{", "[1,]", "1 2", r#"{"a" 1}"#, "1e400"] {
            let buffer = Bytes::copy_from_slice(bad.as_bytes());
            let text = std::str::from_utf8(&buffer).expect("UTF-8");
            let ours = parse(&buffer, text).expect_err("invalid JSON").to_string();
            let theirs = serde_json::from_str::<Val>(bad)
                .expect_err("invalid JSON")
                .to_string();
            assert_eq!(ours, theirs, "{bad}");
        }
    }
}
