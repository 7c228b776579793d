//! UCI protocol (placeholder until the UCI issue lands).
pub fn run_stdio() -> Result<i32, String> {
    Err("UCI mode is not built yet".into())
}
