// request_id.rs: JSON-RPC request id equality by the rpcid rule, for Rust.
// One file, standard library only, Rust 2021: copy it into an SDK as a
// module (`mod request_id;`). It builds with rustc alone.
//
// The rule (https://github.com/rpcid/rpcid, docs/request-id-equality.md):
// numbers are equal by exact value whatever their spelling (1 = 1.0 = 1e0 =
// 10e-1, 0 = -0); a string is equal to an integer exactly when it is the
// integer's canonical decimal spelling, in ASCII, within i64 ("7" = 7; "07",
// "+7", "-0", " 7", "7.0", "0x7", "" and "７" equal no number); other
// strings are equal when they are identical after their escapes are
// resolved; a string never equals a fractional number.
//
// Keys are Strings, equal for two ids exactly when the ids are equal under
// the rule, and spelled as request-id.mjs spells them: an integer within i64
// (a number in any spelling, or a string in canonical decimal) gives its
// decimal digits, "-12"; any other number gives "n" and its exact value as
// digits and exponent in lowest terms, "n15e-1" for 1.5, "n1e400"; any other
// string gives a double quote and the string's value, "\"abc". The first
// character tells the three apart.
//
// No function here panics, for any input. Where the key goes in rmcp's
// client is shown on request_id_key.

/// Returns the key of a request id given as the JSON text of its value, or
/// `None` when the text is not an id that can name a request.
///
/// `raw` is the id's JSON text exactly as received, such as
/// `serde_json::value::RawValue::get` gives it; JSON whitespace (space, tab,
/// line feed, carriage return) may surround the value, and no other
/// character may. `None` is returned for text that is not one JSON value;
/// for `null` (a request id is never null, and a null response id answers
/// no request), `true`, `false`, objects and arrays; for a string with a raw
/// control character or a `\u` escape of a lone surrogate; and for a number
/// d × 10^e in lowest terms (d not divisible by 10) with |e| >= 10^18, which
/// the rule refuses rather than compute with. Zero has a key in every
/// spelling, `0e99999999999999999999` included.
///
/// Two ids are the same id exactly when both have a key and the keys are
/// equal, so a `HashMap<String, _>` keyed by it is a table of pending
/// requests that matches responses by the rule.
///
/// # In rmcp's client
///
/// rmcp reads an id as `NumberOrString` (`crates/rmcp/src/model.rs`) and
/// compares a response's id with a request's in two places:
/// `NumberOrString::matches_response_id`, used by the initialize handshake in
/// `crates/rmcp/src/service/client.rs` (a mismatch there is
/// `ClientInitializeError::ConflictInitResponseId`, "expected 0, got 0"),
/// and `remove_pending_request` in `crates/rmcp/src/service.rs`, which looks
/// a response up in the map of requests in flight (`local_responder_pool`,
/// a `HashMap<RequestId, Responder<..>>`). Both fall back to
/// `str::parse::<i64>()` on a string id, which also takes `"+1"`, `"01"`
/// and `"-0"`. With a key per id, both become one comparison:
///
/// ```ignore
/// // model.rs: the key of an id already decoded.
/// impl NumberOrString {
///     pub(crate) fn request_key(&self) -> String {
///         match self {
///             NumberOrString::Number(n) => request_id::request_id_key_i64(*n),
///             NumberOrString::String(s) => request_id::request_id_key_str(s),
///         }
///     }
///     pub(crate) fn matches_response_id(&self, response_id: &Self) -> bool {
///         self.request_key() == response_id.request_key()
///     }
/// }
///
/// // service.rs: the map of requests in flight is keyed by the id's key,
/// // wherever it is used (a request sent, its send failing, its
/// // cancellation, a response or an error response arriving), so that a
/// // response is found whichever spelling of the id it carries;
/// // remove_pending_request and its parse fallback are no longer needed.
/// let mut local_responder_pool = HashMap::<String, Responder<_>>::new();
/// local_responder_pool.insert(id.request_key(), responder);
/// // on a response with id `id`:
/// if let Some(responder) = local_responder_pool.remove(&id.request_key()) {
///     let _ = responder.send(Ok(result));
/// }
/// ```
///
/// `NumberOrString` holds only an `i64` or a string: its deserializer
/// refuses `1.0`, `1e0` and integers beyond `i64`, so a response with such
/// an id is an error before any comparison, although `1.0` is the id 1. To
/// match those too, read the response's `id` member as
/// `Box<serde_json::value::RawValue>` and key it with `request_id_key`:
/// its key is the one `request_id_key_i64` gives the same integer.
pub fn request_id_key(raw: &str) -> Option<String> {
    let text = raw.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));
    match text.as_bytes().first()? {
        b'"' => string_value(text).map(|s| request_id_key_str(&s)),
        b'-' | b'0'..=b'9' => number_key(text),
        _ => None, // null, true, false, an object, an array, or not JSON
    }
}

/// Reports whether two ids, each given as the JSON text of its value, are
/// the same request id under the rule: true exactly when both have a key
/// (see `request_id_key`) and the keys are equal. Text that is not an id
/// that can name a request, `null` included, equals nothing, not even
/// itself.
pub fn same_request_id(a: &str, b: &str) -> bool {
    match (request_id_key(a), request_id_key(b)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// Returns the key of the integer id `n`, as rmcp's
/// `NumberOrString::Number(n)` holds it: the same key `request_id_key` gives
/// every JSON spelling of n (`1`, `1.0`, `10e-1`, `"1"`).
pub fn request_id_key_i64(n: i64) -> String {
    n.to_string()
}

/// Returns the key of the string id whose value (escapes resolved) is `s`,
/// as rmcp's `NumberOrString::String` holds it: the key of the integer it
/// spells when `s` is an integer's canonical decimal spelling within i64
/// (`request_id_key_str("1") == request_id_key_i64(1)`), and otherwise a key
/// no number has (`"01"`, `"+1"`, `"-0"`, `" 1"` and `"1.0"` are strings).
pub fn request_id_key_str(s: &str) -> String {
    if is_canonical_i64(s) {
        s.to_string()
    } else {
        format!("\"{s}")
    }
}

/// Reports whether s matches `"0" / [ "-" ] %x31-39 *%x30-39` and denotes
/// an integer within i64.
fn is_canonical_i64(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    match digits.as_bytes() {
        [b'0'] => digits.len() == s.len(), // "0", but not "-0"
        [b'1'..=b'9', rest @ ..] => rest.iter().all(u8::is_ascii_digit) && s.parse::<i64>().is_ok(),
        _ => false,
    }
}

/// Returns the value of the JSON string `text` (starting with its opening
/// quote, ending with its closing quote), or None when it is not one JSON
/// string or escapes a lone surrogate.
fn string_value(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out = String::with_capacity(b.len());
    let (mut i, mut run) = (1, 1); // run: the start of the unescaped bytes before i
    loop {
        match *b.get(i)? {
            b'"' => {
                out.push_str(&text[run..i]);
                return (i + 1 == b.len()).then_some(out);
            }
            b'\\' => {
                out.push_str(&text[run..i]);
                let c = match *b.get(i + 1)? {
                    b'"' => '"',
                    b'\\' => '\\',
                    b'/' => '/',
                    b'b' => '\u{8}',
                    b'f' => '\u{c}',
                    b'n' => '\n',
                    b'r' => '\r',
                    b't' => '\t',
                    b'u' => {
                        let hi = hex4(b, i + 2)?;
                        i += 4;
                        if (0xD800..0xDC00).contains(&hi) {
                            // A high surrogate must be followed by an
                            // escaped low one; together they are one char.
                            if b.get(i + 2..i + 4)? != b"\\u" {
                                return None;
                            }
                            let lo = hex4(b, i + 4)?;
                            if !(0xDC00..0xE000).contains(&lo) {
                                return None;
                            }
                            i += 6;
                            char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))?
                        } else {
                            char::from_u32(hi)? // None for a lone low surrogate
                        }
                    }
                    _ => return None,
                };
                out.push(c);
                i += 2;
                run = i;
            }
            0x00..=0x1f => return None, // control characters must be escaped
            _ => i += 1,
        }
    }
}

/// Returns the value of the four hexadecimal digits at b[i..i+4].
fn hex4(b: &[u8], i: usize) -> Option<u32> {
    b.get(i..i + 4)?
        .iter()
        .try_fold(0, |n, &c| Some(n << 4 | (c as char).to_digit(16)?))
}

/// The rule refuses a number d × 10^e in lowest terms with |e| >= 10^18.
const MAX_EXP: i128 = 1_000_000_000_000_000_000;

/// Returns the key of the JSON number `text`, or None when it is not one or
/// is out of the rule's range.
fn number_key(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let digits_from = |mut i: usize| {
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let negative = b.first() == Some(&b'-');
    let int_start = usize::from(negative);
    let mut i = match b.get(int_start)? {
        b'0' => int_start + 1,
        b'1'..=b'9' => digits_from(int_start + 1),
        _ => return None,
    };
    let int_digits = &text[int_start..i];
    let mut frac_digits = "";
    if b.get(i) == Some(&b'.') {
        let end = digits_from(i + 1);
        if end == i + 1 {
            return None;
        }
        frac_digits = &text[i + 1..end];
        i = end;
    }
    // The written exponent, or None when it has more than 20 significant
    // digits: then it is at least 10^20, and no number of digits that fits
    // in memory brings the exponent in lowest terms back under 10^18.
    let mut written_exp = Some(0i128);
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        let exp_negative = b.get(i) == Some(&b'-');
        if matches!(b.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        let end = digits_from(i);
        if end == i {
            return None;
        }
        let significant = text[i..end].trim_start_matches('0');
        written_exp = match significant.len() {
            0 => Some(0),
            1..=20 => significant
                .parse::<i128>()
                .ok()
                .map(|e| if exp_negative { -e } else { e }),
            _ => None,
        };
        i = end;
    }
    if i != b.len() {
        return None;
    }

    // The value is ±digits × 10^(written_exp - frac_digits.len()).
    let all = |s: &str| s.bytes().all(|c| c == b'0');
    if all(int_digits) && all(frac_digits) {
        return Some("0".to_string()); // a zero, whatever its sign and exponent
    }
    let digits = format!("{int_digits}{frac_digits}");
    let digits = digits.trim_start_matches('0');
    let trimmed = digits.trim_end_matches('0');
    let exp = written_exp? - frac_digits.len() as i128 + (digits.len() - trimmed.len()) as i128;
    if exp >= MAX_EXP || exp <= -MAX_EXP {
        return None;
    }
    if exp >= 0 && trimmed.len() as i128 + exp <= 19 {
        // At most 19 digits: the magnitude is below 10^19, within i128.
        let magnitude = trimmed.parse::<i128>().ok()? * 10i128.pow(exp as u32);
        if let Ok(n) = i64::try_from(if negative { -magnitude } else { magnitude }) {
            return Some(request_id_key_i64(n));
        }
    }
    let sign = if negative { "-" } else { "" };
    if exp == 0 {
        Some(format!("n{sign}{trimmed}"))
    } else {
        Some(format!("n{sign}{trimmed}e{exp}"))
    }
}
