//! Bench (placeholder until the search lands).
pub fn run(_depth: Option<u32>) -> Result<i32, String> {
    Err("bench is not built yet".into())
}
