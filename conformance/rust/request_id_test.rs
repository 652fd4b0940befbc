// request_id_test.rs: runs request_id.rs over every case of
// rpcidtest/vectors.json (at the repository root) and over the conformance
// checks of ../testdata/cases.json, with rustc alone:
//
//     rustc --edition 2021 --test request_id_test.rs -o /tmp/request_id_test
//     /tmp/request_id_test
//
// Both files are read at compile time and parsed by the small JSON reader
// at the end of this file, which shares no code with request_id.rs. Raw ids
// that are not valid UTF-8 cannot be a &str, so they have no key, as a
// Rust JSON reader refuses them. Vectors whose id is null are listed, not
// checked: request_id.rs treats null as no request id by design.

#[path = "request_id.rs"]
mod request_id;

use request_id::{request_id_key, request_id_key_i64, request_id_key_str, same_request_id};

const VECTORS: &str = include_str!("../../rpcidtest/vectors.json");

/// The key of raw id bytes: None when they are not UTF-8.
fn key_of(raw: &[u8]) -> Option<String> {
    std::str::from_utf8(raw).ok().and_then(request_id_key)
}

/// The key request_id.rs must give an id, from the vector's key spelling:
/// an i64 integer as its digits, another number as "n" and the spelling, a
/// string as a double quote and its value.
fn key_from_vector(key: &str) -> String {
    if key.starts_with('"') {
        return format!("\"{}", Json::parse(key).str());
    }
    match key.parse::<i64>() {
        Ok(n) => n.to_string(),
        Err(_) => format!("n{key}"),
    }
}

/// The bytes of a case's raw id: the UTF-8 of `field`, or the bytes of
/// `field_hex`.
fn raw_bytes(case: &Json, field: &str) -> Vec<u8> {
    if let Some(text) = case.get(field) {
        return text.str().as_bytes().to_vec();
    }
    let hex = case
        .get(&format!("{field}_hex"))
        .expect("raw or raw_hex")
        .str();
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
        .collect()
}

fn vectors() -> Json {
    Json::parse(VECTORS)
}

#[test]
fn decode_vectors() {
    let file = vectors();
    let (mut checked, mut nulls, mut failures) = (0, Vec::new(), Vec::new());
    for v in file.get("decode").unwrap().arr() {
        let name = v.get("name").unwrap().str();
        let key = key_of(&raw_bytes(v, "raw"));
        if !v.get("valid").unwrap().bool() {
            checked += 1;
            if let Some(key) = key {
                failures.push(format!(
                    "{name}: invalid ({}) but has key {key:?}",
                    v.get("error").unwrap().str()
                ));
            }
            continue;
        }
        let kind = v.get("kind").unwrap().str();
        if kind == "null" {
            nulls.push(name.to_string());
            if key.is_some() {
                failures.push(format!("{name}: null has key {key:?}"));
            }
            continue;
        }
        checked += 1;
        let want = key_from_vector(v.get("key").unwrap().str());
        if key.as_deref() != Some(want.as_str()) {
            failures.push(format!("{name}: valid {kind}, key {key:?}, want {want:?}"));
        }
        // The canonical text and the vector's key spelling are the same id.
        for label in ["canonical", "key"] {
            let text = v.get(label).unwrap().str();
            if request_id_key(text).as_deref() != Some(want.as_str()) {
                failures.push(format!(
                    "{name}: its {label} spelling {text} has key {:?}, want {want:?}",
                    request_id_key(text)
                ));
            }
        }
        // The same id decoded, as rmcp's NumberOrString holds it.
        let decoded = match kind {
            "int" => Some(request_id_key_i64(
                v.get("key").unwrap().str().parse().unwrap(),
            )),
            "string" => Some(request_id_key_str(
                Json::parse(v.get("canonical").unwrap().str()).str(),
            )),
            _ => None,
        };
        if decoded.is_some() && decoded.as_deref() != Some(want.as_str()) {
            failures.push(format!(
                "{name}: decoded {kind} has key {decoded:?}, want {want:?}"
            ));
        }
    }
    println!(
        "request_id.rs: {checked} decode vectors checked, {} failed",
        failures.len()
    );
    println!(
        "null, which request_id.rs treats as no request id by design ({}): {}",
        nulls.len(),
        nulls.join(", ")
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked + nulls.len() == file.get("decode").unwrap().arr().len());
}

#[test]
fn pair_vectors() {
    let file = vectors();
    let (mut checked, mut nulls, mut failures) = (0, Vec::new(), Vec::new());
    for p in file.get("pairs").unwrap().arr() {
        let name = p.get("name").unwrap().str();
        let (a, b) = (raw_bytes(p, "a"), raw_bytes(p, "b"));
        let equal = p.get("equal").unwrap().bool();
        let is_null = |raw: &[u8]| {
            std::str::from_utf8(raw)
                .is_ok_and(|s| s.trim_matches([' ', '\t', '\n', '\r']) == "null")
        };
        if equal && (is_null(&a) || is_null(&b)) {
            nulls.push(name.to_string()); // null = null, but null is no request id
            continue;
        }
        checked += 1;
        for (x, y, dir) in [(&a, &b, ""), (&b, &a, " (reversed)")] {
            let by_key = matches!((key_of(x), key_of(y)), (Some(kx), Some(ky)) if kx == ky);
            let same = match (std::str::from_utf8(x), std::str::from_utf8(y)) {
                (Ok(x), Ok(y)) => same_request_id(x, y),
                _ => false,
            };
            if same != by_key {
                failures.push(format!(
                    "{name}{dir}: same_request_id {same}, but the keys say {by_key}"
                ));
            }
            if same != equal {
                failures.push(format!(
                    "{name}{dir}: same_request_id {same}, want {equal}: {}",
                    p.get("reason").unwrap().str()
                ));
            }
        }
    }
    println!(
        "request_id.rs: {checked} pair vectors checked both ways, {} failed",
        failures.len()
    );
    println!(
        "null = null, which request_id.rs treats as no request id by design ({}): {}",
        nulls.len(),
        nulls.join(", ")
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked + nulls.len() == file.get("pairs").unwrap().arr().len());
}

#[test]
fn conformance_checks() {
    // The (sent, received) checks the SDK matrix runs (../testdata/cases.json),
    // as an SDK would use the keys: a request pending under the sent id's
    // key, the response looked up under the received id's key.
    let file = Json::parse(include_str!("../testdata/cases.json"));
    let (mut run, mut unsendable, mut failures) = (0, 0, Vec::new());
    for c in file.get("cases").unwrap().arr() {
        let Some(sent) = key_of(&raw_bytes(c, "sent")) else {
            unsendable += 1;
            continue;
        };
        run += 1;
        let got = key_of(&raw_bytes(c, "received")).as_deref() == Some(sent.as_str());
        if got != c.get("want").unwrap().bool() {
            failures.push(format!("{}: matched {got}", c.get("vector").unwrap().str()));
        }
    }
    println!(
        "request_id.rs on {} conformance checks: {run} run, {unsendable} unsendable, {} disagree",
        run + unsendable,
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(run > 1000, "only {run} checks run");
}

#[test]
fn decoded_ids() {
    assert_eq!(request_id_key_str("1"), request_id_key_i64(1));
    assert_eq!(request_id_key_str("0"), request_id_key_i64(0));
    assert_eq!(request_id_key_str("-12"), request_id_key_i64(-12));
    assert_eq!(
        request_id_key_str("9223372036854775807"),
        request_id_key_i64(i64::MAX)
    );
    assert_eq!(
        request_id_key_str("-9223372036854775808"),
        request_id_key_i64(i64::MIN)
    );
    for s in [
        "01",
        "+1",
        "-0",
        "00",
        " 1",
        "1 ",
        "1.0",
        "1e0",
        "0x1",
        "１",
        "١",
        "1_0",
        "",
        "-",
        "9223372036854775808",
        "-9223372036854775809",
        "99999999999999999999",
    ] {
        let key = request_id_key_str(s);
        assert!(
            !key.chars().next().unwrap().is_ascii_digit()
                && !key.starts_with('-')
                && !key.starts_with('n'),
            "{s:?}: key {key:?} is a number's"
        );
        assert_eq!(
            Some(key),
            request_id_key(&format!("\"{}\"", s.replace('"', "\\\""))),
            "{s:?}"
        );
    }
    assert_ne!(request_id_key_str("01"), request_id_key_i64(1));
    assert_ne!(request_id_key_str("-0"), request_id_key_i64(0));
    assert_ne!(request_id_key_str("n1"), request_id_key("1").unwrap());
    assert_ne!(request_id_key_str("\"1"), request_id_key_str("1"));
    for (raw, n) in [
        ("1", 1),
        ("1.0", 1),
        ("1e0", 1),
        ("10e-1", 1),
        ("-0", 0),
        ("0.0e-99", 0),
        ("1e18", 1_000_000_000_000_000_000),
        ("\"-7\"", -7),
        ("-9223372036854775808", i64::MIN),
    ] {
        assert_eq!(request_id_key(raw), Some(request_id_key_i64(n)), "{raw}");
    }
    assert_eq!(
        request_id_key_str("😀"),
        request_id_key("\"\\ud83d\\ude00\"").unwrap()
    );
}

#[test]
fn edges() {
    let none = [
        "",
        " ",
        "null",
        " null ",
        "true",
        "false",
        "{}",
        "[]",
        "[1]",
        "{\"id\":1}",
        "1 2",
        "\"a\" \"b\"",
        "01",
        "-",
        "+1",
        ".5",
        "1.",
        "1e",
        "1e+",
        "1.e1",
        "0x1",
        "NaN",
        "Infinity",
        "\u{feff}1",
        "1\u{a0}",
        "\u{b}1",
        "\"\\ud800\"",
        "\"\\udc00\"",
        "\"\\ud800\\u0041\"",
        "\"\\ud800\\\"",
        "\"\\ud83d\"",
        "\"a\u{0}\"",
        "\"\t\"",
        "\"\u{1f}\"",
        "\"\\x41\"",
        "\"\\u+041\"",
        "\"\\u004\"",
        "\"\\U0041\"",
        "\"abc",
        "\"abc\\\"",
        "\"",
        "10e999999999999999999",
        "1e-1000000000000000000",
        "0.001e-999999999999999998",
        "1e999999999999999999999999999999",
    ];
    for raw in none {
        assert_eq!(request_id_key(raw), None, "{raw:?}");
        assert!(!same_request_id(raw, raw), "{raw:?}");
    }
    let keys = [
        ("1e999999999999999999", "n1e999999999999999999"),
        ("-1e-999999999999999999", "n-1e-999999999999999999"),
        ("0e99999999999999999999", "0"),
        ("-0.000e-999999999999999999999999", "0"),
        ("1.50", "n15e-1"),
        ("15e-1", "n15e-1"),
        ("10e399", "n1e400"),
        ("9223372036854775807", "9223372036854775807"),
        ("9223372036854775808", "n9223372036854775808"),
        ("-9223372036854775809", "n-9223372036854775809"),
        ("9007199254740993", "9007199254740993"),
        ("1E+2", "100"),
        ("0.1", "n1e-1"),
        ("\"\\u0041\"", "\"A"),
        ("\"\\/\\b\\f\\n\\r\\t\\\"\\\\\"", "\"/\u{8}\u{c}\n\r\t\"\\"),
        ("\"\\u00e9\"", "\"é"),
        ("\"\\u00E9\"", "\"é"),
        ("\"\u{7f}\"", "\"\u{7f}"),
        ("\"\\u0031\"", "1"),
        ("\"\\uD83D\\uDE00\"", "\"😀"),
        (" \r\n\t\"x\" ", "\"x"),
    ];
    for (raw, want) in keys {
        assert_eq!(request_id_key(raw).as_deref(), Some(want), "{raw:?}");
    }
    assert!(same_request_id("1", "\"1\""));
    assert!(same_request_id("1e3", "1000.000"));
    assert!(!same_request_id("1.5", "\"1.5\""));
    assert!(!same_request_id("1", "\"01\""));
    assert!(!same_request_id("9007199254740993", "9007199254740992"));
    // A long mantissa takes linear time.
    let long = format!("1.{}1", "0".repeat(200_000));
    assert_eq!(
        request_id_key(&long),
        Some(format!("n1{}1e-200001", "0".repeat(200_000)))
    );
}

/// A JSON value, as far as the vectors file needs one.
enum Json {
    Null,
    Bool(bool),
    Number,
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    fn parse(text: &str) -> Json {
        let mut r = Reader {
            b: text.as_bytes(),
            i: 0,
        };
        let v = r.value();
        r.ws();
        assert!(r.i == r.b.len(), "JSON: trailing bytes at {}", r.i);
        v
    }
    fn get(&self, name: &str) -> Option<&Json> {
        match self {
            Json::Obj(members) => members.iter().find(|(k, _)| k == name).map(|(_, v)| v),
            _ => panic!("JSON: not an object"),
        }
    }
    fn str(&self) -> &str {
        match self {
            Json::Str(s) => s,
            _ => panic!("JSON: not a string"),
        }
    }
    fn bool(&self) -> bool {
        match self {
            Json::Bool(b) => *b,
            _ => panic!("JSON: not a boolean"),
        }
    }
    fn arr(&self) -> &[Json] {
        match self {
            Json::Arr(a) => a,
            _ => panic!("JSON: not an array"),
        }
    }
}

struct Reader<'a> {
    b: &'a [u8],
    i: usize,
}

impl Reader<'_> {
    fn ws(&mut self) {
        while matches!(self.b.get(self.i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }
    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        let ok = self.b.get(self.i) == Some(&c);
        self.i += usize::from(ok);
        ok
    }
    fn value(&mut self) -> Json {
        self.ws();
        let rest = &self.b[self.i..];
        for (word, v) in [
            ("null", Json::Null),
            ("true", Json::Bool(true)),
            ("false", Json::Bool(false)),
        ] {
            if rest.starts_with(word.as_bytes()) {
                self.i += word.len();
                return v;
            }
        }
        match rest.first() {
            Some(b'"') => Json::Str(self.string()),
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                while !self.eat(b']') {
                    if !items.is_empty() {
                        assert!(self.eat(b','), "JSON: expected , at {}", self.i);
                    }
                    items.push(self.value());
                }
                Json::Arr(items)
            }
            Some(b'{') => {
                self.i += 1;
                let mut members = Vec::new();
                while !self.eat(b'}') {
                    if !members.is_empty() {
                        assert!(self.eat(b','), "JSON: expected , at {}", self.i);
                    }
                    self.ws();
                    let name = self.string();
                    assert!(self.eat(b':'), "JSON: expected : at {}", self.i);
                    members.push((name, self.value()));
                }
                Json::Obj(members)
            }
            _ => {
                let n = rest
                    .iter()
                    .take_while(|c| c.is_ascii_digit() || b"+-.eE".contains(c))
                    .count();
                assert!(n > 0, "JSON: unexpected byte at {}", self.i);
                self.i += n;
                Json::Number
            }
        }
    }
    fn string(&mut self) -> String {
        assert!(
            self.b[self.i] == b'"',
            "JSON: expected a string at {}",
            self.i
        );
        self.i += 1;
        let mut units: Vec<u16> = Vec::new(); // UTF-16, so that escaped surrogate pairs join
        loop {
            let c = self.b[self.i];
            match c {
                b'"' => break,
                b'\\' => {
                    let e = self.b[self.i + 1];
                    self.i += 2;
                    if e == b'u' {
                        let hex = std::str::from_utf8(&self.b[self.i..self.i + 4]).unwrap();
                        units.push(u16::from_str_radix(hex, 16).expect("JSON: \\u escape"));
                        self.i += 4;
                        continue;
                    }
                    let c = match e {
                        b'b' => 8,
                        b'f' => 12,
                        b'n' => b'\n',
                        b'r' => b'\r',
                        b't' => b'\t',
                        b'"' | b'\\' | b'/' => e,
                        _ => panic!("JSON: bad escape at {}", self.i),
                    };
                    units.push(c.into());
                }
                _ => {
                    let len = match c {
                        0..=0x7f => 1,
                        0xc0..=0xdf => 2,
                        0xe0..=0xef => 3,
                        _ => 4,
                    };
                    let ch = std::str::from_utf8(&self.b[self.i..self.i + len]).unwrap();
                    units.extend(ch.encode_utf16());
                    self.i += len;
                }
            }
        }
        self.i += 1;
        String::from_utf16(&units).expect("JSON: lone surrogate in the vectors file")
    }
}
