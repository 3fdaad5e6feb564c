//! A small timing harness: warm up, then time every iteration on its own and report order
//! statistics (median and p95), which a few slow outliers (page faults, the scheduler) do not
//! move the way they move a mean.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// Order statistics of a set of samples.
#[derive(Debug, Clone, Copy)]
pub struct Stats {
    pub runs: usize,
    pub min: Duration,
    pub median: Duration,
    pub p95: Duration,
}

impl Stats {
    /// Statistics of `samples` (must not be empty). p95 is the nearest-rank percentile.
    pub fn of(mut samples: Vec<Duration>) -> Stats {
        assert!(!samples.is_empty(), "no samples");
        samples.sort_unstable();
        let n = samples.len();
        let median = if n % 2 == 1 {
            samples[n / 2]
        } else {
            (samples[n / 2 - 1] + samples[n / 2]) / 2
        };
        let p95_rank = (n * 95).div_ceil(100).max(1);
        Stats {
            runs: n,
            min: samples[0],
            median,
            p95: samples[p95_rank - 1],
        }
    }
}

/// How long to sample each measurement.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Warm-up time (at least `min_warmup` iterations).
    pub warmup: Duration,
    pub min_warmup: usize,
    /// Measurement time, within `min_iters..=max_iters` iterations.
    pub measure: Duration,
    pub min_iters: usize,
    pub max_iters: usize,
}

impl Budget {
    pub const DEFAULT: Budget = Budget {
        warmup: Duration::from_millis(200),
        min_warmup: 3,
        measure: Duration::from_millis(1500),
        min_iters: 30,
        max_iters: 5000,
    };
    pub const QUICK: Budget = Budget {
        warmup: Duration::from_millis(20),
        min_warmup: 1,
        measure: Duration::from_millis(150),
        min_iters: 5,
        max_iters: 500,
    };
}

/// Time `f`: warm up, size the run from the warm-up's speed, then time each call.
pub fn bench<T>(budget: Budget, mut f: impl FnMut() -> T) -> Stats {
    let start = Instant::now();
    let mut warm = 0usize;
    while warm < budget.min_warmup || start.elapsed() < budget.warmup {
        black_box(f());
        warm += 1;
    }
    let per_iter = start.elapsed() / warm as u32;
    let wanted = budget.measure.as_nanos() / per_iter.as_nanos().max(1);
    let iters = (wanted as usize).clamp(budget.min_iters, budget.max_iters);
    let mut samples = Vec::with_capacity(iters);
    for _ in 0..iters {
        let t = Instant::now();
        black_box(f());
        samples.push(t.elapsed());
    }
    Stats::of(samples)
}

/// A duration in milliseconds with 3 decimals (µs resolution).
pub fn ms(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1e3)
}
