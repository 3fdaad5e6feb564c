//! A second module that calls the first.

use crate::add;

pub fn twice(x: i32) -> i32 {
    add(x, x)
}
