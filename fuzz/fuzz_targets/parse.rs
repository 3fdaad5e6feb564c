//! Fuzz target `parse`: `parse_patch` on arbitrary input never panics, and what it returns is
//! consistent (a patch with files, or a parse refusal that points inside the patch).
#![no_main]

use libfuzzer_sys::fuzz_target;
use lspedit_engine::{Reason, classify_patch_operations, parse_patch};

fuzz_target!(|data: &[u8]| {
    // Patches arrive as text; decoding lossily keeps every byte string the fuzzer makes useful
    // instead of discarding the non-UTF-8 ones.
    let text = String::from_utf8_lossy(data);
    let patch_lines = text.split('\n').count();
    match parse_patch(&text) {
        Ok(patch) => {
            assert!(!patch.files.is_empty(), "Ok patch without files");
            for fp in &patch.files {
                assert!(fp.patch_line >= 1 && fp.patch_line <= patch_lines);
            }
            classify_patch_operations(&patch);
        }
        Err(e) => {
            assert!(
                matches!(
                    e.reason,
                    Reason::EmptyDiff
                        | Reason::InvalidDiffFormat
                        | Reason::TruncatedInput
                        | Reason::AnchoredAddition
                        | Reason::BinaryFile
                        | Reason::UnsafeDiff
                ),
                "parse_patch refused with a reason that is not a parse reason: {e}"
            );
            if let Some(line) = e.patch_line {
                assert!(
                    line >= 1 && line <= patch_lines,
                    "error names patch line {line} of {patch_lines}: {e}"
                );
            }
        }
    }
});
