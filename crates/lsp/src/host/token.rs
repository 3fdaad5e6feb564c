//! The host's secret: 32 random bytes in an owner-only file of the runtime directory
//! ([`super::TOKEN_FILE`]), sent by every client in its [`super::Hello`]. The socket answers
//! any process of the user that can reach it, a language server's code too (the socket's path
//! is no secret); the token answers only lspedit's own processes, since the sandbox grants no
//! server any right in the runtime directory.
//!
//! The file is created whole under a temporary name and linked into place (never half
//! written), and read only when it is a regular file of this user with mode 0600, opened
//! without following a symlink.

#[cfg(unix)]
use std::io::{Read, Write};
#[cfg(unix)]
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
#[cfg(unix)]
use std::path::Path;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[cfg(unix)]
use super::{HostError, TOKEN_FILE};

const LEN: usize = 32;

/// The token as a client sends it and a host expects it. Its `Debug` shows nothing of it, and
/// two tokens compare only in constant time ([`Token::matches`]).
#[derive(Clone)]
pub struct Token([u8; LEN]);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(..)")
    }
}

impl Token {
    /// Whether `other` is this token, in time independent of where they differ.
    pub fn matches(&self, other: &Token) -> bool {
        let diff = self
            .0
            .iter()
            .zip(other.0.iter())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b));
        std::hint::black_box(diff) == 0
    }

    fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    fn from_hex(text: &[u8]) -> Option<Token> {
        if text.len() != 2 * LEN {
            return None;
        }
        let mut out = [0u8; LEN];
        for (byte, pair) in out.iter_mut().zip(text.chunks_exact(2)) {
            let digit = |c: u8| (c as char).to_digit(16);
            *byte = u8::try_from(digit(pair[0])? * 16 + digit(pair[1])?).ok()?;
        }
        Some(Token(out))
    }
}

impl Serialize for Token {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.hex())
    }
}

impl<'de> Deserialize<'de> for Token {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Token, D::Error> {
        let text = String::deserialize(d)?;
        // The message never repeats what was sent.
        Token::from_hex(text.as_bytes())
            .ok_or_else(|| serde::de::Error::custom("a token is 64 hex digits"))
    }
}

/// The token of the runtime directory `dir` (already checked by [`super::runtime_dir`]):
/// read from its [`TOKEN_FILE`], which is created first when there is none.
#[cfg(unix)]
pub(crate) fn load_or_create(dir: &Path) -> Result<Token, HostError> {
    let path = dir.join(TOKEN_FILE);
    match read(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        other => return other.map_err(|e| refused(&path, &e)),
    }
    create(dir).map_err(|e| refused(&path, &e))?;
    read(&path).map_err(|e| refused(&path, &e))
}

/// Whether the token file of `dir` still holds `token` (a host whose file was removed or
/// replaced can be reached by no client).
#[cfg(unix)]
pub(crate) fn still(dir: &Path, token: &Token) -> bool {
    read(&dir.join(TOKEN_FILE)).is_ok_and(|t| t.matches(token))
}

#[cfg(unix)]
fn refused(path: &Path, e: &std::io::Error) -> HostError {
    HostError::Token(format!("{}: {e}", path.display()))
}

/// Reads the token file at `path`: a regular file of this user, mode 0600, never through a
/// symlink (`O_NOFOLLOW`: a link there fails to open), holding 64 hex digits.
#[cfg(unix)]
fn read(path: &Path) -> std::io::Result<Token> {
    let invalid = |why: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, why.to_owned());
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        // A FIFO put there does not block the open.
        .custom_flags(no_follow_no_block())
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.file_type().is_file() {
        return Err(invalid("not a regular file"));
    }
    if meta.uid() != rustix::process::getuid().as_raw() {
        return Err(invalid("owned by another user"));
    }
    if meta.mode() & 0o7777 != 0o600 {
        return Err(invalid(&format!(
            "mode {:o}, not 600 (owner-only)",
            meta.mode() & 0o7777
        )));
    }
    let mut text = Vec::with_capacity(2 * LEN + 1);
    Read::by_ref(&mut file)
        .take(2 * LEN as u64 + 1)
        .read_to_end(&mut text)?;
    Token::from_hex(&text).ok_or_else(|| invalid("not 64 hex digits"))
}

/// `O_NOFOLLOW | O_NONBLOCK` as `OpenOptions::custom_flags` takes them.
#[cfg(unix)]
fn no_follow_no_block() -> i32 {
    use rustix::fs::OFlags;
    (OFlags::NOFOLLOW | OFlags::NONBLOCK).bits() as i32
}

/// Writes a fresh token to a file of its own, mode 0600, then links it to [`TOKEN_FILE`]: a
/// reader sees no file or the whole token. When another process linked one first, that one
/// stays (every process then reads the same).
#[cfg(unix)]
fn create(dir: &Path) -> std::io::Result<()> {
    let mut bytes = [0u8; LEN];
    let random = |buf: &mut [u8]| {
        getrandom::fill(buf).map_err(|e| std::io::Error::other(format!("no random bytes: {e}")))
    };
    random(&mut bytes)?;
    let token = Token(bytes);
    let mut suffix = [0u8; 8];
    random(&mut suffix)?;
    let temp = dir.join(format!(
        "{TOKEN_FILE}.{:016x}.new",
        u64::from_ne_bytes(suffix)
    ));
    let written = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .open(&temp)?;
        // The umask may have taken more than group and others.
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        file.write_all(token.hex().as_bytes())?;
        file.sync_all()?;
        match std::fs::hard_link(&temp, dir.join(TOKEN_FILE)) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => Err(e),
            _ => Ok(()),
        }
    })();
    let _ = std::fs::remove_file(&temp);
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_as_hex_and_compare_whole() {
        let a = Token([7; LEN]);
        let line = serde_json::to_string(&a).unwrap();
        assert_eq!(line, format!("\"{}\"", "07".repeat(LEN)));
        let back: Token = serde_json::from_str(&line).unwrap();
        assert!(back.matches(&a));
        let mut other = [7; LEN];
        other[LEN - 1] = 8;
        assert!(!Token(other).matches(&a));
        assert_eq!(format!("{a:?}"), "Token(..)");
        for bad in ["\"07\"", "\"zz\"", &format!("\"{}\"", "g".repeat(2 * LEN))] {
            let e = serde_json::from_str::<Token>(bad).unwrap_err().to_string();
            assert!(e.contains("64 hex digits"), "{e}");
        }
    }
}
