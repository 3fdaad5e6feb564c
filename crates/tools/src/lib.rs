//! lspedit-tools
