//! Search and evaluation benchmarks (criterion).
//!
//! - static evaluation over the bench positions (with and without the pawn hash);
//! - static exchange evaluation of every capture in the bench positions;
//! - a fixed-depth search of a few positions with a fresh hash (the per-node cost).
//!
//! `cargo bench --bench search -- --warm-up-time 1 --measurement-time 3`

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use ox88::bench::POSITIONS;
use ox88::eval::{evaluate, evaluate_cached, PawnTable};
use ox88::search::{SearchLimits, Searcher, SharedControl};
use ox88::see::see;
use ox88::Position;

fn positions() -> Vec<Position> {
    POSITIONS.iter().map(|f| Position::from_fen(f).expect("bench FEN")).collect()
}

fn bench_eval(c: &mut Criterion) {
    let list = positions();
    c.bench_function("evaluate (no pawn hash)", |b| {
        b.iter(|| list.iter().map(|p| evaluate(black_box(p))).sum::<i32>())
    });
    let mut pawns = PawnTable::default();
    c.bench_function("evaluate (pawn hash)", |b| {
        b.iter(|| list.iter().map(|p| evaluate_cached(black_box(p), &mut pawns)).sum::<i32>())
    });
}

fn bench_see(c: &mut Criterion) {
    let list = positions();
    let captures: Vec<(Position, Vec<ox88::Move>)> =
        list.iter().map(|p| (p.clone(), p.legal_tactical_moves().iter().copied().collect())).collect();
    c.bench_function("see (all captures)", |b| {
        b.iter(|| captures.iter().map(|(p, ms)| ms.iter().map(|&m| see(p, m)).sum::<i32>()).sum::<i32>())
    });
}

fn bench_search(c: &mut Criterion) {
    let list = positions();
    let limits = SearchLimits { depth: Some(7), multipv: 1, ..Default::default() };
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    group.bench_function("depth 7, first 6 bench positions", |b| {
        b.iter(|| {
            let mut s = Searcher::new(16);
            let control = SharedControl::default();
            list.iter().take(6).map(|p| s.search(p, &[], &limits, &control, &mut |_| {}).nodes).sum::<u64>()
        })
    });
    group.finish();
}

criterion_group!(benches, bench_eval, bench_see, bench_search);
criterion_main!(benches);
