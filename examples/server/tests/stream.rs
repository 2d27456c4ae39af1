//! `POST /validate` reads a raw X12 body as it arrives (issue 32, item 5): the same bytes
//! as the core's whole-input validation for every vector input, whatever the chunking;
//! the limit and the errors of a buffered body; and a large generated body validated in
//! bounded memory (the server process's peak RSS, VmHWM, asserted).

mod common;
use common::*;
use serde_json::{Value, json};
use std::io::Read;

/// The raw X12 inputs of the shared vectors.
fn vector_inputs() -> Vec<(String, Vec<u8>)> {
    let dir = repo_root().join("tests/vectors/inputs");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(files.len() > 50, "{} vector inputs", files.len());
    files
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

/// A reader handing out `data` `step` bytes at a time (a body of unknown length, sent
/// chunked, its frames as small as `step`).
struct Trickle {
    data: Vec<u8>,
    at: usize,
    step: usize,
}

impl Read for Trickle {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(buf.len()).min(self.data.len() - self.at);
        buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

fn chunked(data: &[u8], step: usize) -> reqwest::blocking::Body {
    reqwest::blocking::Body::new(Trickle {
        data: data.to_vec(),
        at: 0,
        step,
    })
}

/// The peak resident memory of a process (VmHWM), in bytes.
fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .expect("VmHWM in /proc/PID/status");
    let kb: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap();
    kb * 1024
}

#[test]
fn streamed_validate_answers_the_cores_bytes_for_every_vector_input() {
    let s = Server::start();
    for (i, (name, input)) in vector_inputs().into_iter().enumerate() {
        if input.is_empty() {
            for body in [
                chunked(&input, 1),
                reqwest::blocking::Body::from(Vec::new()),
            ] {
                let r = s
                    .post("/api/v1/validate", ALPHA)
                    .header("content-type", "application/edi-x12")
                    .body(body)
                    .send()
                    .unwrap();
                error_body(r, 400, "EMPTY_BODY");
            }
            continue;
        }
        for structure in [false, true] {
            let o: x12kit::ops::ValidateOptions =
                x12kit::ops::options(json!({"structure": structure})).unwrap();
            let expected = x12kit::ops::validate_json(&input, &o);
            // Chunked (unknown length: the streamed path) in frames of 1 byte to 64 KiB,
            // and with its length (the whole-body path below 8 KiB).
            let step = [1, 7, 4096, 65536][(i + usize::from(structure)) % 4];
            let path = format!("{}/validate?structure={structure}", PREFIXES[i % 2]);
            let streamed = s
                .post(&path, ALPHA)
                .header("content-type", "application/edi-x12")
                .body(chunked(&input, step))
                .send()
                .unwrap();
            let status = streamed.status();
            assert!(streamed.headers().get("content-length").is_some());
            let got = streamed.bytes().unwrap();
            assert_eq!(status, 200, "{name}: {}", String::from_utf8_lossy(&got));
            assert_eq!(
                got.as_ref(),
                expected.as_slice(),
                "{name} structure={structure} in {step}-byte frames"
            );
            let whole = s
                .post(&path, ALPHA)
                .header("content-type", "application/octet-stream")
                .body(input.clone())
                .send()
                .unwrap();
            assert_eq!(
                whole.bytes().unwrap().as_ref(),
                expected.as_slice(),
                "{name}"
            );
        }
        // With an acknowledgement: the validation is the same, the acknowledgement that
        // of the core for that validation.
        let r = s
            .post("/api/v1/validate?ack=999&controlNumber=7", ALPHA)
            .header("content-type", "text/plain; charset=utf-8")
            .body(chunked(&input, 512))
            .send()
            .unwrap();
        assert_eq!(r.status(), 200, "{name}");
        let mut v: Value = r.json().unwrap();
        assert_eq!(v["acknowledgement"]["kind"], "999", "{name}");
        v.as_object_mut().unwrap().remove("acknowledgement");
        let expected: Value =
            serde_json::from_slice(&x12kit::ops::validate_json(&input, &Default::default()))
                .unwrap();
        assert_eq!(v, expected, "{name}");
    }
}

#[test]
fn a_streamed_body_has_the_limit_and_errors_of_a_whole_one() {
    let limit = 64 * 1024;
    let s = Server::start_with(Options {
        max_body_bytes: limit,
        ..Options::default()
    });
    let big = generated(limit as u64 + 1);
    let mut over = Vec::new();
    big.take(limit as u64 + 1).read_to_end(&mut over).unwrap();
    // Over the limit without a declared length: found while reading, the same 413.
    let r = s
        .post("/api/v1/validate", ALPHA)
        .header("content-type", "application/edi-x12")
        .body(chunked(&over, 8192))
        .send()
        .unwrap();
    error_body(r, 413, "PAYLOAD_TOO_LARGE");
    // With its length declared: refused before a byte is read, as before.
    let r = s
        .post("/api/v1/validate", ALPHA)
        .header("content-type", "application/edi-x12")
        .body(over.clone())
        .send()
        .unwrap();
    error_body(r, 413, "PAYLOAD_TOO_LARGE");
    // Exactly at the limit: validated.
    let r = s
        .post("/api/v1/validate", ALPHA)
        .header("content-type", "application/edi-x12")
        .body(chunked(&over[..limit], 8192))
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    // Empty, chunked: the same 400 as an empty body of length 0.
    let r = s
        .post("/api/v1/validate", ALPHA)
        .header("content-type", "application/edi-x12")
        .body(chunked(b"", 1))
        .send()
        .unwrap();
    error_body(r, 400, "EMPTY_BODY");
    // An unknown media type is refused before the body is read.
    let r = s
        .post("/api/v1/validate", ALPHA)
        .header("content-type", "image/png")
        .body(chunked(&over[..1000], 100))
        .send()
        .unwrap();
    error_body(r, 415, "UNSUPPORTED_MEDIA_TYPE");
}

/// A generated interchange of about `size` bytes, made as it is read: one group of
/// 850s of about 250 KiB each (4,000 PO1 lines), valid, the sets numbered, the counts right.
struct Generated {
    sets: u64,
    n: u64,
    buf: Vec<u8>,
    at: usize,
    total: u64,
}

const LINES: usize = 4000;
const LINE: &[u8] = b"PO1*1*10*EA*9.25**BP*ITEM-0123456789*VP*VENDOR-PART-01234~";

fn generated(size: u64) -> Generated {
    let header = b"ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*00401*000000001*0*P*>~GS*PO*SENDER*RECEIVER*20230101*1200*1*X*004010~".to_vec();
    let set_bytes = (LINES * LINE.len() + 64) as u64;
    Generated {
        sets: (size / set_bytes).max(1),
        n: 0,
        buf: header,
        at: 0,
        total: 0,
    }
}

impl Read for Generated {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.at == self.buf.len() {
            if self.n > self.sets {
                return Ok(0);
            }
            self.buf.clear();
            self.at = 0;
            self.n += 1;
            let n = self.n;
            if n > self.sets {
                let end = format!("GE*{}*1~IEA*1*000000001~", self.sets);
                self.buf.extend_from_slice(end.as_bytes());
            } else {
                let st = format!("ST*850*{n:09}~BEG*00*SA*PO-{n}**20230101~");
                self.buf.extend_from_slice(st.as_bytes());
                for _ in 0..LINES {
                    self.buf.extend_from_slice(LINE);
                }
                let se = format!("SE*{}*{n:09}~", LINES + 3);
                self.buf.extend_from_slice(se.as_bytes());
            }
        }
        let k = out.len().min(self.buf.len() - self.at);
        out[..k].copy_from_slice(&self.buf[self.at..self.at + k]);
        self.at += k;
        self.total += k as u64;
        Ok(k)
    }
}

/// Taken by the tests of large bodies, so that they run one at a time: each measures its
/// server's peak memory and time, and three of them at once on 2 cores starve their
/// clients (a client that reads nothing for `send_timeout_ms` is cut off).
static LARGE: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn large() -> std::sync::MutexGuard<'static, ()> {
    LARGE.lock().unwrap_or_else(|e| e.into_inner())
}

/// The generated body's size: `X12KIT_STREAM_TEST_BYTES`, 1 GiB by default.
fn large_size() -> u64 {
    std::env::var("X12KIT_STREAM_TEST_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1 << 30)
}

#[test]
fn a_large_body_is_validated_in_bounded_memory() {
    let _one_at_a_time = large();
    let size = large_size();
    let limit = (size + (1 << 20)) as usize;
    let s = Server::start_with(Options {
        max_body_bytes: limit,
        server_toml: Some(format!(
            "request_timeout_ms = 1800000\nbody_memory_bytes = {}\n",
            limit.min(u32::MAX as usize)
        )),
        ..Options::default()
    });
    // The server's memory once it serves (a first small validation).
    let small = s
        .post("/api/v1/validate", ALPHA)
        .header("content-type", "application/edi-x12")
        .body(chunked(
            &{
                let mut v = Vec::new();
                generated(1).read_to_end(&mut v).unwrap();
                v
            },
            4096,
        ))
        .send()
        .unwrap();
    assert_eq!(small.status(), 200);
    let before = peak_rss(s.pid());
    let started = std::time::Instant::now();
    let client = reqwest::blocking::Client::builder()
        .timeout(std::time::Duration::from_secs(1800))
        .build()
        .unwrap();
    let body = generated(size);
    let sets = body.sets;
    let r = client
        .post(format!("{}/api/v1/validate", s.base))
        .bearer_auth(ALPHA)
        .header("content-type", "application/edi-x12")
        .body(reqwest::blocking::Body::new(body))
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    let v: Value = r.json().unwrap();
    let took = started.elapsed();
    let after = peak_rss(s.pid());
    assert_eq!(v["valid"], true, "{}", &v["diagnostics"]);
    assert_eq!(v["errorCount"], 0);
    let listed = v["interchanges"][0]["groups"][0]["transactions"]
        .as_array()
        .map_or(0, Vec::len);
    assert_eq!(listed as u64, sets);
    let grew = after.saturating_sub(before);
    eprintln!(
        "validated {size} bytes ({sets} sets) in {:.1} s ({:.0} MB/s); server peak RSS {} MiB before, {} MiB after",
        took.as_secs_f64(),
        size as f64 / took.as_secs_f64() / 1e6,
        before >> 20,
        after >> 20
    );
    // The body is never held: what the peak grows by is the frames in flight and the
    // sets' summaries, far below the input.
    assert!(
        grew < 48 << 20,
        "the server's peak RSS grew by {} MiB validating {} MiB",
        grew >> 20,
        size >> 20
    );
}

#[test]
fn streamed_parse_answers_the_cores_bytes_for_every_vector_input() {
    let s = Server::start();
    for (i, (name, input)) in vector_inputs().into_iter().enumerate() {
        if input.is_empty() {
            let r = s
                .post("/api/v1/parse", ALPHA)
                .header("content-type", "application/edi-x12")
                .body(chunked(&input, 1))
                .send()
                .unwrap();
            error_body(r, 400, "EMPTY_BODY");
            continue;
        }
        for documents in [true, false] {
            let o: x12kit::ops::ParseOptions =
                x12kit::ops::options(json!({"documents": documents})).unwrap();
            let expected = x12kit::ops::parse_json(&input, &o);
            let step = [1, 7, 4096, 65536][(i + usize::from(documents)) % 4];
            let r = s
                .post(
                    &format!("{}/parse?documents={documents}", PREFIXES[i % 2]),
                    ALPHA,
                )
                .header("content-type", "application/edi-x12")
                .body(chunked(&input, step))
                .send()
                .unwrap();
            assert_eq!(r.status(), 200, "{name}");
            assert_eq!(r.headers()["content-type"], "application/json");
            // Sent as it is written: no length up front.
            assert_eq!(r.headers()["transfer-encoding"], "chunked", "{name}");
            assert_eq!(
                r.bytes().unwrap().as_ref(),
                expected.as_slice(),
                "{name} documents={documents} in {step}-byte frames"
            );
        }
    }
    // Over the limit while arriving: the same 413, before any of the result.
    let limit = 64 * 1024;
    let s = Server::start_with(Options {
        max_body_bytes: limit,
        ..Options::default()
    });
    let mut over = Vec::new();
    generated(limit as u64 + 1)
        .take(limit as u64 + 1)
        .read_to_end(&mut over)
        .unwrap();
    let r = s
        .post("/api/v1/parse", ALPHA)
        .header("content-type", "application/edi-x12")
        .body(chunked(&over, 8192))
        .send()
        .unwrap();
    error_body(r, 413, "PAYLOAD_TOO_LARGE");
}

#[test]
fn a_large_body_is_parsed_in_bounded_memory() {
    let _one_at_a_time = large();
    use sha2::{Digest, Sha256};
    let size: u64 = std::env::var("X12KIT_STREAM_TEST_PARSE_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256 << 20);
    let limit = (size + (1 << 20)) as usize;
    let s = Server::start_with(Options {
        max_body_bytes: limit,
        server_toml: Some(format!(
            "request_timeout_ms = 1800000\nbody_memory_bytes = {}\n",
            limit.min(u32::MAX as usize)
        )),
        ..Options::default()
    });
    // The expected result: the core's streamed JSON of the same bytes, hashed.
    let mut generated_input = Vec::new();
    generated(size).read_to_end(&mut generated_input).unwrap();
    let input_len = generated_input.len();
    let mut hasher = Sha256::new();
    let mut expected_len = 0usize;
    {
        struct Hashing<'a>(&'a mut Sha256, &'a mut usize);
        impl std::io::Write for Hashing<'_> {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.update(b);
                *self.1 += b.len();
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let o: x12kit::ops::ParseOptions =
            x12kit::ops::options(json!({"documents": false})).unwrap();
        x12kit::ops::parse_json_to_writer(
            &generated_input,
            &o,
            Hashing(&mut hasher, &mut expected_len),
        )
        .unwrap();
    }
    drop(generated_input);
    let expected = hasher.finalize();
    let before = peak_rss(s.pid());
    let started = std::time::Instant::now();
    let client = reqwest::blocking::Client::builder()
        .timeout(std::time::Duration::from_secs(1800))
        .build()
        .unwrap();
    let mut r = client
        .post(format!("{}/api/v1/parse?documents=false", s.base))
        .bearer_auth(ALPHA)
        .header("content-type", "application/edi-x12")
        .body(reqwest::blocking::Body::new(generated(size)))
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    let mut got = Sha256::new();
    let mut got_len = 0usize;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = r.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        got.update(&buf[..n]);
        got_len += n;
    }
    let took = started.elapsed();
    let after = peak_rss(s.pid());
    assert_eq!(got_len, expected_len);
    assert_eq!(
        got.finalize(),
        expected,
        "the streamed result differs from the core's"
    );
    let grew = after.saturating_sub(before);
    eprintln!(
        "parsed {input_len} bytes into {got_len} bytes of JSON in {:.1} s; server peak RSS {} MiB before, {} MiB after",
        took.as_secs_f64(),
        before >> 20,
        after >> 20
    );
    assert!(
        grew < 64 << 20,
        "the server's peak RSS grew by {} MiB parsing {} MiB into {} MiB of JSON",
        grew >> 20,
        input_len >> 20,
        got_len >> 20
    );
}

#[test]
fn a_slow_reader_of_a_streamed_parse_does_not_hold_a_core() {
    use std::io::Write;
    // As many clients as the server has core slots (one per core) start large streamed
    // parses and never read the answer; a parse that needs a core must still be answered.
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let s = Server::start_with(Options {
        server_toml: Some(format!(
            "request_timeout_ms = 600000\nsend_timeout_ms = 600000\nx12 = {{ concurrency = {} }}\n",
            cores + 4
        )),
        ..Options::default()
    });
    let mut body = Vec::new();
    generated(12 << 20).read_to_end(&mut body).unwrap();
    let addr = s.base.trim_start_matches("http://").to_string();
    let stalled: Vec<std::net::TcpStream> = (0..cores)
        .map(|_| {
            let mut c = std::net::TcpStream::connect(&addr).unwrap();
            write!(
                c,
                "POST /api/v1/parse HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {ALPHA}\r\nContent-Type: application/edi-x12\r\nContent-Length: {}\r\n\r\n",
                body.len()
            )
            .unwrap();
            c.write_all(&body).unwrap();
            c
        })
        .collect();
    // The parses fill the sockets and the answers' channels, then wait for their readers.
    std::thread::sleep(std::time::Duration::from_secs(3));
    let mut small = Vec::new();
    generated(200_000).read_to_end(&mut small).unwrap();
    let o: x12kit::ops::ParseOptions = x12kit::ops::options(json!({})).unwrap();
    let expected = x12kit::ops::parse_json(&small, &o);
    let client = reqwest::blocking::Client::builder()
        .timeout(std::time::Duration::from_secs(60))
        .build()
        .unwrap();
    let started = std::time::Instant::now();
    let r = client
        .post(format!("{}/api/v1/parse", s.base))
        .bearer_auth(ALPHA)
        .header("content-type", "application/edi-x12")
        .body(small)
        .send()
        .expect("a parse answered while slow readers hold their answers");
    assert_eq!(r.status(), 200);
    assert_eq!(r.bytes().unwrap().as_ref(), expected.as_slice());
    let took = started.elapsed();
    eprintln!("{cores} stalled readers of streamed parses; a 200 KB parse answered in {took:?}");
    // (Were the stalled parses holding the cores, it would wait for them until the
    // client's timeout: their send timeout is 10 minutes here.)
    assert!(took < std::time::Duration::from_secs(10), "{took:?}");
    drop(stalled);
}

#[test]
fn a_large_inbound_body_is_applied_in_bounded_memory() {
    let _one_at_a_time = large();
    // X12KIT_STREAM_TEST_INBOUND_BYTES, 128 MiB by default (about a minute for the debug
    // build on 2 shared cores: each set is mapped and recorded with its document and X12,
    // the store growing by about 3.5 times the body).
    let size: u64 = std::env::var("X12KIT_STREAM_TEST_INBOUND_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(128 << 20);
    let limit = (size + (1 << 20)) as usize;
    let s = Server::start_with(Options {
        max_body_bytes: limit,
        server_toml: Some("request_timeout_ms = 1800000\n".into()),
        ..Options::default()
    });
    // The server's memory once it serves (a first small inbound body, streamed too).
    let mut first = Vec::new();
    generated(1).read_to_end(&mut first).unwrap();
    let first = String::from_utf8(first)
        .unwrap()
        .replace("000000001", "000000002");
    let r = s
        .post("/api/v1/documents/inbound?partnerId=acme-retail", ALPHA)
        .header("content-type", "application/edi-x12")
        .body(chunked(first.as_bytes(), 65536))
        .send()
        .unwrap();
    assert_eq!(r.status(), 200, "{}", r.text().unwrap());
    let before = peak_rss(s.pid());
    let started = std::time::Instant::now();
    let client = reqwest::blocking::Client::builder()
        .timeout(std::time::Duration::from_secs(1800))
        .build()
        .unwrap();
    let body = generated(size);
    let sets = body.sets;
    let r = client
        .post(format!(
            "{}/api/v1/documents/inbound?partnerId=acme-retail",
            s.base
        ))
        .bearer_auth(ALPHA)
        .header("content-type", "application/edi-x12")
        .body(reqwest::blocking::Body::new(body))
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    let v: Value = r.json().unwrap();
    let took = started.elapsed();
    let after = peak_rss(s.pid());
    let d = &v["data"];
    assert_eq!(
        d["interchanges"][0]["result"], "processed",
        "{}",
        d["interchanges"]
    );
    let recorded = d["transactions"].as_array().unwrap();
    assert_eq!(recorded.len() as u64, sets);
    // The last set is there, with its mapped document.
    let last = recorded.last().unwrap()["documentId"].as_str().unwrap();
    let t: Value = s
        .get(&format!("/api/v1/transactions/{last}"), ALPHA)
        .json()
        .unwrap();
    assert_eq!(
        t["data"]["controlNumbers"]["transaction"], sets as i64,
        "{t}"
    );
    assert!(t["data"]["document"].is_object());
    let grew = after.saturating_sub(before);
    eprintln!(
        "inbound: applied {size} bytes ({sets} sets) in {:.1} s ({:.0} MB/s); server peak RSS {} MiB before, {} MiB after",
        took.as_secs_f64(),
        size as f64 / took.as_secs_f64() / 1e6,
        before >> 20,
        after >> 20
    );
    // Neither the body nor the sets are held: the peak grows by a batch of records (at
    // most 8 MiB), the set being mapped and the sets' summaries (the live heap peaks at
    // ~17 MiB; the peak RSS grew by +16 to +23 MiB for 128 MiB once the allocator gave
    // freed pages back promptly, src/memory.rs, and by +36 to +94 MiB before), far below
    // the input.
    assert!(
        grew < 64 << 20 && grew < size / 2,
        "the server's peak RSS grew by {} MiB applying {} MiB",
        grew >> 20,
        size >> 20
    );
}
