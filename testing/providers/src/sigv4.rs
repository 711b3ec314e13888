//! AWS Signature Version 4 (HMAC-SHA256), as the AWS SDK signs a Bedrock runtime call: the
//! canonical request (path segments encoded twice, as every service but S3 expects), the string
//! to sign over the credential scope, the derived signing key.

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

/// What is signed.
#[derive(Debug, Clone)]
pub struct Signing<'a> {
    pub method: &'a str,
    /// The path as sent (already URI-encoded once).
    pub path: &'a str,
    /// The query as sent (`a=1&b=2`, may be empty).
    pub query: &'a str,
    /// The headers to sign (any case; `host` and `x-amz-date` among them).
    pub headers: &'a [(String, String)],
    pub payload: &'a [u8],
    /// `YYYYMMDD'T'HHMMSS'Z'`, the `x-amz-date` header's value.
    pub amz_date: &'a str,
    pub region: &'a str,
    pub service: &'a str,
    /// Whether path segments are encoded again (all services but S3).
    pub double_encode_path: bool,
}

/// Hex of the SHA-256 of `data`.
pub fn sha256_hex(data: &[u8]) -> String {
    hex(&Sha256::digest(data))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn hmac(key: &[u8], data: &[u8]) -> Vec<u8> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(data);
    mac.finalize().into_bytes().to_vec()
}

/// RFC 3986 encoding as SigV4 wants it: unreserved characters kept, everything else `%XX`.
pub fn uri_encode(text: &str, keep_slash: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(byte as char)
            }
            b'/' if keep_slash => out.push('/'),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

fn canonical_query(query: &str) -> String {
    if query.is_empty() {
        return String::new();
    }
    let mut pairs: Vec<(String, String)> = query
        .split('&')
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (uri_encode(&decode(k), false), uri_encode(&decode(v), false))
        })
        .collect();
    pairs.sort();
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&")
}

/// Percent-decoding of a query part (`+` stays as it is: SigV4 signs what is sent).
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && bytes[i + 1].is_ascii_hexdigit()
            && bytes[i + 2].is_ascii_hexdigit()
            && let Ok(b) = u8::from_str_radix(&text[i + 1..i + 3], 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The signed header names (`a;b;c`) and the canonical headers block.
fn canonical_headers(headers: &[(String, String)]) -> (String, String) {
    let mut list: Vec<(String, String)> = headers
        .iter()
        .map(|(n, v)| {
            (
                n.to_ascii_lowercase(),
                v.split_whitespace().collect::<Vec<_>>().join(" "),
            )
        })
        .collect();
    list.sort();
    let names = list
        .iter()
        .map(|(n, _)| n.as_str())
        .collect::<Vec<_>>()
        .join(";");
    let block: String = list.iter().map(|(n, v)| format!("{n}:{v}\n")).collect();
    (names, block)
}

/// The canonical request (step 1 of the signature).
pub fn canonical_request(s: &Signing<'_>) -> String {
    let path = if s.double_encode_path {
        s.path
            .split('/')
            .map(|segment| uri_encode(segment, false))
            .collect::<Vec<_>>()
            .join("/")
    } else {
        s.path.to_string()
    };
    let (names, block) = canonical_headers(s.headers);
    format!(
        "{}\n{}\n{}\n{}\n{}\n{}",
        s.method,
        if path.is_empty() { "/" } else { &path },
        canonical_query(s.query),
        block,
        names,
        sha256_hex(s.payload)
    )
}

/// The `Authorization` header's value for these credentials.
pub fn authorization(s: &Signing<'_>, access_key: &str, secret_key: &str) -> String {
    let date = &s.amz_date[..8.min(s.amz_date.len())];
    let scope = format!("{date}/{}/{}/aws4_request", s.region, s.service);
    let string_to_sign = format!(
        "AWS4-HMAC-SHA256\n{}\n{scope}\n{}",
        s.amz_date,
        sha256_hex(canonical_request(s).as_bytes())
    );
    let key = [date, s.region, s.service, "aws4_request"]
        .iter()
        .fold(format!("AWS4{secret_key}").into_bytes(), |key, part| {
            hmac(&key, part.as_bytes())
        });
    let signature = hex(&hmac(&key, string_to_sign.as_bytes()));
    let (names, _) = canonical_headers(s.headers);
    format!(
        "AWS4-HMAC-SHA256 Credential={access_key}/{scope}, SignedHeaders={names}, Signature={signature}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The worked example of AWS's SigV4 documentation (IAM `ListUsers`, 2015-08-30).
    #[test]
    fn signs_the_documented_example() {
        let headers = vec![
            (
                "Content-Type".to_string(),
                "application/x-www-form-urlencoded; charset=utf-8".to_string(),
            ),
            ("Host".to_string(), "iam.amazonaws.com".to_string()),
            ("X-Amz-Date".to_string(), "20150830T123600Z".to_string()),
        ];
        let signing = Signing {
            method: "GET",
            path: "/",
            query: "Action=ListUsers&Version=2010-05-08",
            headers: &headers,
            payload: b"",
            amz_date: "20150830T123600Z",
            region: "us-east-1",
            service: "iam",
            double_encode_path: true,
        };
        assert_eq!(
            sha256_hex(canonical_request(&signing).as_bytes()),
            "f536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59"
        );
        assert_eq!(
            authorization(
                &signing,
                "AKIDEXAMPLE",
                "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
            ),
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7"
        );
    }

    #[test]
    fn path_segments_are_encoded_twice() {
        let signing = Signing {
            method: "POST",
            path: "/model/anthropic.claude-v2%3A1/converse",
            query: "",
            headers: &[],
            payload: b"{}",
            amz_date: "20250101T000000Z",
            region: "us-east-1",
            service: "bedrock",
            double_encode_path: true,
        };
        assert!(
            canonical_request(&signing).contains("/model/anthropic.claude-v2%253A1/converse\n")
        );
    }
}
