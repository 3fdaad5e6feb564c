//! lspedit-engine
