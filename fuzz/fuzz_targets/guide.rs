//! Fuzzes the partner guide loader and the guided checks: any bytes as a
//! guide must give a guide or `INVALID_GUIDE` with every problem at a JSON
//! pointer, never a panic; a guide that loads then checks a few sets (clean,
//! departing from common guides, broken) without a panic, every finding at a
//! pointer of the guide. Seed with examples/guides/*.json (see README.md).
#![no_main]

use libfuzzer_sys::fuzz_target;
use x12kit::guide::{Guide, Guides};
use x12kit::ops;

const ISA: &str = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *231114*2213*U*00401*000000001*0*P*>~GS*PO*SENDER*RECEIVER*20231114*2213*1*X*004010~";
const BODIES: [&str; 3] = [
    "ST*850*0001~BEG*00*SA*PO-1**20231114~REF*DP*038~N1*ST*STORE*92*1~PO1*1*10*EA*9.99**VP*W-1~PID*F****X~CTT*1~SE*8*0001~",
    "ST*850*0001~BEG*00*RL*PO-1**20231114~CUR*BY*USD~REF*ZZ*1~REF*DP*2~REF*IA*3~PO1*1*1*DZ*1**VP*x~PID*F****A~PID*F****B~SE*11*0001~",
    "ST*850*0001~N1*ST*A~PO1~PO1*2~SE*5*0001~",
];

fuzz_target!(|data: &[u8]| {
    let guide = match Guide::from_json(data) {
        Ok(g) => g,
        Err(e) => {
            assert_eq!(e.code().as_str(), "INVALID_GUIDE");
            assert!(!e.details().is_empty());
            assert!(e.details().iter().all(|p| p.pointer.starts_with('/')));
            return;
        }
    };
    let source = guide.to_value().clone();
    let options = ops::ValidateOptions {
        guides: Guides::new(vec![guide]).expect("one guide"),
        ..Default::default()
    };
    for body in BODIES {
        let x12 = format!("{ISA}{body}GE*1*1~IEA*1*000000001~");
        let v = ops::validate(x12.as_bytes(), &options);
        for d in &v.diagnostics {
            if let Some(p) = d.guide_pointer.as_deref() {
                assert!(source.pointer(p).is_some(), "{p}");
            }
        }
        let _ = v.to_json();
    }
});
