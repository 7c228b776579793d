//! The SPSA driver's own tests (tools/spsa_test.py: the schedule, the update on a synthetic
//! objective, resuming, and two iterations through a fake runner), run with the project's
//! tests. They need python3, as the rest of the tools do.

use std::process::Command;

#[test]
fn the_spsa_driver_passes_its_tests() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tools/spsa_test.py");
    let out = Command::new("python3")
        .arg(script)
        .output()
        .unwrap_or_else(|e| panic!("python3 is needed to test tools/spsa.py: {e}"));
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "tools/spsa_test.py failed:\n{text}{}", String::from_utf8_lossy(&out.stdout));
    assert!(text.contains("\nOK"), "{text}");
}
