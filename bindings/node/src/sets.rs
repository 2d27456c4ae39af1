//! `transactions()`: a file of any size handed over a transaction set at a
//! time (the core's `json::each_set_json` on a thread of its own). The
//! native `SetReader` maps a file (its pages dropped behind the parser) or
//! copies a buffer; `next()` is a task on the libuv pool that waits for the
//! next set's JSON, so the event loop never waits for the parser. A
//! `Readable` is spooled to a temporary file by `index.js` first.

use crate::convert::opts;
use crate::errors::{guard, panic_message, to_napi};
use napi::bindgen_prelude::*;
use napi::{Env, Task};
use napi_derive::napi;
use serde_json::Value;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use x12kit::json::JsonOptions;
use x12kit_mapped::Input;

/// Sets the worker may have written ahead of the caller.
const AHEAD: usize = 8;

enum Msg {
    Set(Vec<u8>),
    End(Vec<x12kit::Diagnostic>),
    Failed(String),
}

fn work(input: Input, o: JsonOptions, tx: SyncSender<Msg>) {
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut released = 0;
        x12kit::json::each_set_json(
            &input,
            &o,
            &mut |set| tx.send(Msg::Set(set.to_vec())).is_ok(),
            &mut |upto| released = input.release(released, upto),
            &mut |from, to| input.drop_pages(from, to),
        )
    }));
    let _ = tx.send(match run {
        Ok(d) => Msg::End(d),
        Err(p) => Msg::Failed(panic_message(&*p)),
    });
}

struct Shared {
    rx: Option<Receiver<Msg>>,
    /// The diagnostics of the input, as JSON, once the end was reached.
    diagnostics: Option<String>,
}

/// Reads the transaction sets of a file or buffer one at a time.
#[napi]
pub struct SetReader {
    shared: Arc<Mutex<Shared>>,
}

/// The wait for the next set, on the libuv pool.
pub struct NextSet {
    shared: Arc<Mutex<Shared>>,
}

impl Task for NextSet {
    type Output = Option<String>;
    type JsValue = Option<String>;

    fn compute(&mut self) -> Result<Self::Output> {
        let mut s = self.shared.lock().map_err(|_| {
            to_napi(&x12kit::Error::internal(
                "the set reader's lock is poisoned",
            ))
        })?;
        let got = match &s.rx {
            Some(rx) => rx.recv().ok(),
            None => return Ok(None),
        };
        match got {
            Some(Msg::Set(json)) => String::from_utf8(json)
                .map(Some)
                .map_err(|e| to_napi(&x12kit::Error::internal(e.to_string()))),
            Some(Msg::End(d)) => {
                s.rx = None;
                let json = serde_json::to_string(&d)
                    .map_err(|e| to_napi(&x12kit::Error::internal(e.to_string())))?;
                s.diagnostics = Some(json);
                Ok(None)
            }
            Some(Msg::Failed(what)) => {
                s.rx = None;
                Err(to_napi(&x12kit::Error::internal(format!(
                    "internal error (a bug in x12kit, please report it): {what}"
                ))))
            }
            None => {
                s.rx = None;
                Ok(None)
            }
        }
    }

    fn resolve(&mut self, _env: Env, out: Self::Output) -> Result<Self::JsValue> {
        Ok(out)
    }
}

#[napi]
impl SetReader {
    /// Opens a reader over the file at `path` (mapped) or over `data`
    /// (copied); `options`: `{ documents }`.
    #[napi(constructor)]
    pub fn new(path: Option<String>, data: Option<&[u8]>, options: Option<Value>) -> Result<Self> {
        guard(|| {
            let o: JsonOptions = opts(options)?;
            let input = match (path, data) {
                (Some(p), _) => Input::open(std::path::Path::new(&p)).map_err(|e| {
                    x12kit::Error::new(x12kit::ErrorCode::Io, format!("cannot read {p}: {e}"))
                })?,
                (None, Some(d)) => Input::Read(d.to_vec()),
                (None, None) => Input::Read(Vec::new()),
            };
            let (tx, rx) = sync_channel(AHEAD);
            std::thread::Builder::new()
                .name("x12kit-sets".into())
                .spawn(move || work(input, o, tx))
                .map_err(|e| {
                    x12kit::Error::new(
                        x12kit::ErrorCode::Io,
                        format!("cannot start the set reader: {e}"),
                    )
                })?;
            Ok(SetReader {
                shared: Arc::new(Mutex::new(Shared {
                    rx: Some(rx),
                    diagnostics: None,
                })),
            })
        })
    }

    /// The next set's JSON, or `null` at the end.
    #[napi(ts_return_type = "Promise<string | null>")]
    pub fn next(&self) -> AsyncTask<NextSet> {
        AsyncTask::new(NextSet {
            shared: self.shared.clone(),
        })
    }

    /// Every diagnostic of the input as JSON, once `next()` has given `null`.
    #[napi]
    pub fn diagnostics(&self) -> Option<String> {
        self.shared.lock().ok().and_then(|s| s.diagnostics.clone())
    }

    /// Stops reading (the reader thread ends).
    #[napi]
    pub fn close(&self) {
        if let Ok(mut s) = self.shared.try_lock() {
            s.rx = None;
        }
    }
}
