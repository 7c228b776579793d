//! `cargo metadata` for the tests that read the locked package graph (licences, the minimum
//! Rust version): the command, and just enough JSON to read what it prints.

use std::path::Path;
use std::process::Command;

// --- just enough JSON for `cargo metadata` ------------------------------------------------------

#[derive(Debug)]
pub enum Json {
    Null,
    /// A number or a boolean: nothing here reads them.
    Scalar,
    Str(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn array(&self) -> &[Json] {
        match self {
            Json::Array(items) => items,
            _ => &[],
        }
    }
}

pub struct JsonReader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl JsonReader<'_> {
    pub fn parse(text: &str) -> Result<Json, String> {
        let mut r = JsonReader { bytes: text.as_bytes(), at: 0 };
        let v = r.value()?;
        r.space();
        if r.at != r.bytes.len() {
            return Err(format!("trailing text at byte {}", r.at));
        }
        Ok(v)
    }

    fn space(&mut self) {
        while self.bytes.get(self.at).is_some_and(|b| b.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    fn eat(&mut self, b: u8) -> Result<(), String> {
        self.space();
        if self.bytes.get(self.at) == Some(&b) {
            self.at += 1;
            Ok(())
        } else {
            Err(format!("'{}' expected at byte {}", b as char, self.at))
        }
    }

    fn literal(&mut self, word: &str, v: Json) -> Result<Json, String> {
        if self.bytes[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(v)
        } else {
            Err(format!("bad literal at byte {}", self.at))
        }
    }

    fn value(&mut self) -> Result<Json, String> {
        self.space();
        match self.bytes.get(self.at) {
            Some(b'{') => {
                self.at += 1;
                let mut fields = Vec::new();
                self.space();
                if self.bytes.get(self.at) == Some(&b'}') {
                    self.at += 1;
                    return Ok(Json::Object(fields));
                }
                loop {
                    self.space();
                    let key = self.string()?;
                    self.eat(b':')?;
                    fields.push((key, self.value()?));
                    self.space();
                    match self.bytes.get(self.at) {
                        Some(b',') => self.at += 1,
                        Some(b'}') => {
                            self.at += 1;
                            return Ok(Json::Object(fields));
                        }
                        _ => return Err(format!("',' or '}}' expected at byte {}", self.at)),
                    }
                }
            }
            Some(b'[') => {
                self.at += 1;
                let mut items = Vec::new();
                self.space();
                if self.bytes.get(self.at) == Some(&b']') {
                    self.at += 1;
                    return Ok(Json::Array(items));
                }
                loop {
                    items.push(self.value()?);
                    self.space();
                    match self.bytes.get(self.at) {
                        Some(b',') => self.at += 1,
                        Some(b']') => {
                            self.at += 1;
                            return Ok(Json::Array(items));
                        }
                        _ => return Err(format!("',' or ']' expected at byte {}", self.at)),
                    }
                }
            }
            Some(b'"') => self.string().map(Json::Str),
            Some(b't') => self.literal("true", Json::Scalar),
            Some(b'f') => self.literal("false", Json::Scalar),
            Some(b'n') => self.literal("null", Json::Null),
            Some(b) if *b == b'-' || b.is_ascii_digit() => {
                while self.bytes.get(self.at).is_some_and(|b| b"+-.eE".contains(b) || b.is_ascii_digit()) {
                    self.at += 1;
                }
                Ok(Json::Scalar)
            }
            _ => Err(format!("a value expected at byte {}", self.at)),
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let digits = self.bytes.get(self.at..self.at + 4).ok_or("a short \\u escape")?;
        let n = u32::from_str_radix(std::str::from_utf8(digits).map_err(|e| e.to_string())?, 16)
            .map_err(|e| format!("bad \\u escape at byte {}: {e}", self.at))?;
        self.at += 4;
        Ok(n)
    }

    fn string(&mut self) -> Result<String, String> {
        if self.bytes.get(self.at) != Some(&b'"') {
            return Err(format!("a string expected at byte {}", self.at));
        }
        self.at += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let Some(&b) = self.bytes.get(self.at) else {
                return Err("an unterminated string".into());
            };
            self.at += 1;
            match b {
                b'"' => return String::from_utf8(out).map_err(|e| e.to_string()),
                b'\\' => {
                    let Some(&e) = self.bytes.get(self.at) else {
                        return Err("an unterminated escape".into());
                    };
                    self.at += 1;
                    let c = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let hi = self.hex4()?;
                            let code = if (0xd800..0xdc00).contains(&hi) && self.bytes[self.at..].starts_with(b"\\u") {
                                self.at += 2;
                                let lo = self.hex4()?;
                                0x10000 + ((hi - 0xd800) << 10) + (lo.wrapping_sub(0xdc00) & 0x3ff)
                            } else {
                                hi
                            };
                            char::from_u32(code).unwrap_or('\u{fffd}')
                        }
                        _ => return Err(format!("a bad escape at byte {}", self.at)),
                    };
                    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                }
                _ => out.push(b),
            }
        }
    }
}

/// `cargo metadata` of the locked graph: offline when every package is in the local cache,
/// else fetched (a build downloads only the host's packages, not the other platforms').
pub fn metadata() -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let run = |offline: bool| {
        let mut cmd = Command::new(&cargo);
        cmd.args(["metadata", "--format-version", "1", "--locked", "--manifest-path"]).arg(&manifest);
        if offline {
            cmd.arg("--offline");
        }
        cmd.output().unwrap_or_else(|e| panic!("cannot run {cargo}: {e}"))
    };
    // The graph spans every platform, and a build fetches only the host's crates: on a fresh
    // machine the others (android_system_properties, windows-sys, ...) are not in the cache
    // yet, so the offline attempt falls back to fetching them from the registry.
    let mut out = run(true);
    if !out.status.success() {
        let first = String::from_utf8_lossy(&out.stderr).into_owned();
        out = run(false);
        assert!(
            out.status.success(),
            "cargo metadata failed offline:\n{first}\nand online:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    String::from_utf8(out.stdout).expect("cargo metadata writes UTF-8")
}
