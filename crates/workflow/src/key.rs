//! The key that makes stored proposals and checkpoints unforgeable (`docs/ids.md`): 32 random
//! bytes in the person's config directory, never in the workspace.
//!
//! Anything that can write `.lspedit/` (a model that writes files, a cloned repository) can
//! write a proposal or a checkpoint; with an unkeyed hash in the id it can also recompute the
//! id, or search a suffix until a short one matches again. So every stored proposal and
//! checkpoint carries an HMAC-SHA256 under this key over everything that decides what gets
//! written, and a patch id is that MAC (128 bits of it): without the key, no one can make a
//! stored file that passes the check, nor an id for a changed one.
//!
//! The key is `<dir>/state.key`, `<dir>` the person's lspedit config directory
//! (`$XDG_CONFIG_HOME/lspedit`, else `~/.config/lspedit`) unless [`super::WorkflowConfig`]
//! names another. It is created on first use: mode 0600 in a 0700 directory, written to a temp
//! file, fsynced and linked into place, so two processes creating it at once end up with one
//! key. A key that is not 32 bytes, not a regular file, or readable by others is refused, and
//! so is a directory inside the workspace.
//!
//! The key is the person's, shared by all their workspaces, so a MAC under it alone would let a
//! proposal or checkpoint copied from one workspace's `.lspedit/` into another's verify there.
//! Every MAC is therefore bound to its workspace: its input carries the workspace's identity,
//! the canonical path of its root ([`workspace_identity`], `docs/ids.md` says why that), beside
//! the domain and the message ([`StateKey::mac_hex`]). A [`StateKey`] is only ever had from the
//! [`KeySource`] of one workspace, so nothing can be signed or verified unbound.
//!
//! On Windows, which has no mode bits, "private" is the key file's ACL (`private` below): it is
//! created with a protected DACL granting only its owner, and a key whose DACL allows anyone
//! but its owner, SYSTEM and the Administrators (who can read any file, as root can on Unix)
//! is refused. The directory gets the ACL it inherits.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use lspedit_write::{Reason, ToolError};

/// The key file's name in its directory.
pub(crate) const KEY_FILE: &str = "state.key";
const KEY_LEN: usize = 32;

/// A loaded key, bound to the workspace it signs for.
#[derive(Clone)]
pub(crate) struct StateKey {
    bytes: [u8; KEY_LEN],
    /// [`workspace_identity`] of the workspace whose [`KeySource`] gave this key.
    workspace: Arc<[u8]>,
}

impl std::fmt::Debug for StateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StateKey(..)")
    }
}

/// What a MAC binds a stored file to: the canonical path of the workspace root (the root of a
/// `lspedit_write::Workspace`, which `Workspace::open` canonicalizes), as the platform encodes
/// it (`OsStr::as_encoded_bytes`: the bytes on Unix, WTF-8 on Windows).
fn workspace_identity(root: &Path) -> Arc<[u8]> {
    root.as_os_str().as_encoded_bytes().into()
}

/// `bytes` preceded by their length (u64, little-endian).
fn length_prefixed(m: &mut Hmac<Sha256>, bytes: &[u8]) {
    m.update(&u64::try_from(bytes.len()).unwrap_or(u64::MAX).to_le_bytes());
    m.update(bytes);
}

impl StateKey {
    /// An HMAC-SHA256 under this key, nothing fed to it yet.
    fn keyed(&self) -> Hmac<Sha256> {
        // An HMAC takes a key of any length; `new_from_slice` cannot fail for HMAC.
        <Hmac<Sha256> as KeyInit>::new_from_slice(&self.bytes)
            .unwrap_or_else(|_| unreachable!("HMAC accepts keys of every length"))
    }

    /// The HMAC over `len(domain) ‖ domain ‖ len(workspace) ‖ workspace ‖ message`, lengths as
    /// u64 little-endian. The domain separates what is signed (a proposal, a checkpoint) so a
    /// MAC of one is never valid for the other; the workspace binds it to the workspace it was
    /// made in, so it verifies in no other. Both are length-prefixed and the message comes
    /// last, so no two (domain, workspace, message) encode alike.
    fn hmac(&self, domain: &str, message: &[u8]) -> Hmac<Sha256> {
        let mut m = self.keyed();
        length_prefixed(&mut m, domain.as_bytes());
        length_prefixed(&mut m, &self.workspace);
        m.update(message);
        m
    }

    /// HMAC-SHA256 of `message` under `domain` and this key's workspace, in 64 lowercase hex
    /// digits.
    pub(crate) fn mac_hex(&self, domain: &str, message: &[u8]) -> String {
        hex(&self.hmac(domain, message).finalize().into_bytes())
    }

    /// Whether `tag` (lowercase hex, at least 32 digits: 128 bits) is the start of the MAC of
    /// `message` under `domain` and this key's workspace. Compared in constant time.
    pub(crate) fn verify_hex(&self, domain: &str, message: &[u8], tag: &str) -> bool {
        let Some(bytes) = unhex(tag) else {
            return false;
        };
        bytes.len() >= 16
            && self
                .hmac(domain, message)
                .verify_truncated_left(&bytes)
                .is_ok()
    }
}

#[cfg(test)]
impl StateKey {
    /// The MAC as lspedit made it before MACs were bound to a workspace (proposals of store
    /// version 3, checkpoints of version 1): over `len(domain) ‖ domain ‖ message`. Only for
    /// the tests that such state is refused.
    pub(crate) fn unbound_mac_hex(&self, domain: &str, message: &[u8]) -> String {
        let mut m = self.keyed();
        length_prefixed(&mut m, domain.as_bytes());
        m.update(message);
        hex(&m.finalize().into_bytes())
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| {
            let d = s.get(i..i + 2)?;
            if d.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
                u8::from_str_radix(d, 16).ok()
            } else {
                None
            }
        })
        .collect()
}

/// Where the key of one workflow comes from, loaded (or created) on first use, and the
/// workspace it is bound to.
#[derive(Debug)]
pub(crate) struct KeySource {
    /// The directory given in the configuration, else the person's config directory.
    dir: Option<PathBuf>,
    /// The workspace root: the key never lives under it.
    root: PathBuf,
    /// [`workspace_identity`] of `root`: every key this gives is bound to it.
    workspace: Arc<[u8]>,
    key: OnceLock<[u8; KEY_LEN]>,
}

impl KeySource {
    /// The key of the workspace at `root`, which must be its canonical path (the root of a
    /// `lspedit_write::Workspace` is): MACs made with it verify only under the same root.
    pub(crate) fn new(dir: Option<PathBuf>, root: &Path) -> KeySource {
        KeySource {
            dir: dir.or_else(lspedit_servers::trust::user_config_dir_from_env),
            root: root.to_path_buf(),
            workspace: workspace_identity(root),
            key: OnceLock::new(),
        }
    }

    /// The key, loaded or created on first use, bound to this workspace.
    pub(crate) fn key(&self) -> Result<StateKey, ToolError> {
        let bytes = match self.key.get() {
            Some(k) => *k,
            None => {
                let loaded = self.load()?;
                *self.key.get_or_init(|| loaded)
            }
        };
        Ok(StateKey {
            bytes,
            workspace: Arc::clone(&self.workspace),
        })
    }

    /// The key's bytes, read or created.
    fn load(&self) -> Result<[u8; KEY_LEN], ToolError> {
        let Some(dir) = &self.dir else {
            return Err(key_error(
                None,
                "lspedit keeps the key that signs proposals and checkpoints in your config directory and cannot find one: set XDG_CONFIG_HOME or HOME".into(),
            ));
        };
        if is_under(dir, &self.root) {
            return Err(key_error(
                Some(dir),
                "the key that signs proposals and checkpoints must not live in the workspace, where a model's writes could reach it; set XDG_CONFIG_HOME (or WorkflowConfig::key_dir) to a directory outside it".into(),
            ));
        }
        load_or_create(dir).map_err(|e| key_error(Some(dir), e.to_string()))
    }
}

/// `io_error` about the key (the path is outside the workspace, so it goes in the message).
fn key_error(dir: Option<&Path>, message: String) -> ToolError {
    let message = match dir {
        Some(d) => format!("the key {}: {message}", d.join(KEY_FILE).display()),
        None => message,
    };
    ToolError::new(Reason::IoError, None, message)
}

/// Whether `dir` is `root` or under it (both as far as they exist, canonicalized).
fn is_under(dir: &Path, root: &Path) -> bool {
    let canon = |p: &Path| {
        // The directory may not exist yet: canonicalize its nearest existing ancestor.
        let mut existing = p.to_path_buf();
        let mut rest = Vec::new();
        while !existing.exists() {
            match (existing.file_name(), existing.parent()) {
                (Some(name), Some(parent)) => {
                    rest.push(name.to_os_string());
                    existing = parent.to_path_buf();
                }
                _ => break,
            }
        }
        let mut c = fs::canonicalize(&existing).unwrap_or(existing);
        c.extend(rest.iter().rev());
        c
    };
    canon(dir).starts_with(canon(root))
}

/// Read `<dir>/state.key`, creating it (and `dir`) when absent.
fn load_or_create(dir: &Path) -> io::Result<[u8; KEY_LEN]> {
    let path = dir.join(KEY_FILE);
    match read_key(&path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        other => return other,
    }
    private::create_dir(dir)?;
    let mut fresh = [0u8; KEY_LEN];
    getrandom::fill(&mut fresh).map_err(|e| io::Error::other(format!("no random bytes: {e}")))?;
    let mut suffix = [0u8; 8];
    getrandom::fill(&mut suffix).map_err(|e| io::Error::other(format!("no random bytes: {e}")))?;
    let tmp = dir.join(format!(".{KEY_FILE}.{}", hex(&suffix)));
    let written = (|| {
        let mut f = private::create_file(&tmp)?;
        f.write_all(&fresh)?;
        f.sync_all()?;
        // A link fails when the name exists: whoever linked first wins, and every process
        // reads that one key.
        match fs::hard_link(&tmp, &path) {
            Err(e) if e.kind() != io::ErrorKind::AlreadyExists => Err(e),
            _ => Ok(()),
        }
    })();
    let _ = fs::remove_file(&tmp);
    written?;
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
    read_key(&path)
}

/// The key at `path`: a regular file (not a symlink) of exactly 32 bytes that no one but its
/// owner can read or write.
fn read_key(path: &Path) -> io::Result<[u8; KEY_LEN]> {
    let meta = fs::symlink_metadata(path)?;
    let invalid = |what: &str| io::Error::new(io::ErrorKind::InvalidData, what.to_string());
    if !meta.is_file() {
        return Err(invalid("the key is not a regular file"));
    }
    let mut bytes = Vec::with_capacity(KEY_LEN + 1);
    private::open(path, &meta)?
        .take(KEY_LEN as u64 + 1)
        .read_to_end(&mut bytes)?;
    bytes
        .try_into()
        .map_err(|_| invalid("the key is not 32 bytes"))
}

/// The key's privacy on Unix: mode bits.
#[cfg(unix)]
mod private {
    use std::fs::{self, DirBuilder, File, OpenOptions};
    use std::io;
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
    use std::path::Path;

    /// The key's directory (and its missing parents): mode 0700.
    pub(super) fn create_dir(dir: &Path) -> io::Result<()> {
        DirBuilder::new().recursive(true).mode(0o700).create(dir)
    }

    /// A new key file (its temp name): mode 0600, created exclusively.
    pub(super) fn create_file(tmp: &Path) -> io::Result<File> {
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(tmp)
    }

    /// Open the key at `path` (checked as `meta`, a regular file) for reading without following
    /// a symlink; refused when others can read or write it.
    pub(super) fn open(path: &Path, meta: &fs::Metadata) -> io::Result<File> {
        if meta.mode() & 0o077 != 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the key can be read or written by others; make it private (chmod 600) or remove it to make a new one (proposals and checkpoints signed with it are then refused)",
            ));
        }
        OpenOptions::new()
            .read(true)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .open(path)
    }
}

/// The key's privacy on Windows: the file's DACL.
#[cfg(windows)]
mod private {
    // The Win32 security calls are foreign functions; each block says why its arguments are
    // valid.
    #![allow(unsafe_code)]

    use std::fs::{self, File, OpenOptions};
    use std::io;
    use std::os::windows::fs::OpenOptionsExt;
    use std::os::windows::io::AsRawHandle;
    use std::path::Path;

    use windows_sys::Win32::Foundation::{ERROR_SUCCESS, LocalFree};
    use windows_sys::Win32::Security::Authorization::{
        ConvertStringSecurityDescriptorToSecurityDescriptorW, GetSecurityInfo, SDDL_REVISION_1,
        SE_FILE_OBJECT, SetSecurityInfo,
    };
    use windows_sys::Win32::Security::{
        ACCESS_ALLOWED_ACE, ACE_HEADER, ACL, ACL_SIZE_INFORMATION, AclSizeInformation,
        DACL_SECURITY_INFORMATION, EqualSid, GetAce, GetAclInformation, GetSecurityDescriptorDacl,
        IsWellKnownSid, OWNER_SECURITY_INFORMATION, PROTECTED_DACL_SECURITY_INFORMATION,
        PSECURITY_DESCRIPTOR, PSID, WinBuiltinAdministratorsSid, WinCreatorOwnerRightsSid,
        WinLocalSystemSid,
    };
    use windows_sys::Win32::Storage::FileSystem::FILE_FLAG_OPEN_REPARSE_POINT;
    use windows_sys::Win32::System::SystemServices::{
        ACCESS_ALLOWED_ACE_TYPE, ACCESS_DENIED_ACE_TYPE,
    };

    /// A security descriptor returned by Win32, freed on drop.
    struct Descriptor(PSECURITY_DESCRIPTOR);

    impl Drop for Descriptor {
        fn drop(&mut self) {
            // SAFETY: the descriptor was allocated by the Win32 call that returned it, for the
            // caller to free with `LocalFree`, and is freed once.
            unsafe { LocalFree(self.0) };
        }
    }

    /// The key's directory (and its missing parents), with the ACL it inherits (the person's
    /// profile directories are theirs alone by default); the key file's own DACL is what keeps
    /// it private.
    pub(super) fn create_dir(dir: &Path) -> io::Result<()> {
        fs::DirBuilder::new().recursive(true).create(dir)
    }

    /// A new key file (its temp name), created exclusively, its DACL then replaced by a
    /// protected one granting its owner alone (`D:P(A;;FA;;;OW)`), before a byte is written.
    pub(super) fn create_file(tmp: &Path) -> io::Result<File> {
        let f = OpenOptions::new().write(true).create_new(true).open(tmp)?;
        let sddl: Vec<u16> = "D:P(A;;FA;;;OW)"
            .encode_utf16()
            .chain(std::iter::once(0))
            .collect();
        let mut sd: PSECURITY_DESCRIPTOR = std::ptr::null_mut();
        // SAFETY: `sddl` is a NUL-terminated UTF-16 string alive for the call; `sd` receives a
        // descriptor this function frees (`Descriptor`); the size is not asked for.
        if unsafe {
            ConvertStringSecurityDescriptorToSecurityDescriptorW(
                sddl.as_ptr(),
                SDDL_REVISION_1,
                &mut sd,
                std::ptr::null_mut(),
            )
        } == 0
        {
            return Err(io::Error::last_os_error());
        }
        let sd = Descriptor(sd);
        let (mut present, mut defaulted) = (0, 0);
        let mut dacl: *mut ACL = std::ptr::null_mut();
        // SAFETY: `sd.0` is the valid descriptor made above; the out-pointers are valid locals.
        if unsafe { GetSecurityDescriptorDacl(sd.0, &mut present, &mut dacl, &mut defaulted) } == 0
            || present == 0
            || dacl.is_null()
        {
            return Err(io::Error::other("no DACL in the key's security descriptor"));
        }
        // SAFETY: the file handle is open for the call; `dacl` points into `sd`, alive until
        // the end of this function; no owner, group or SACL is set.
        let set = unsafe {
            SetSecurityInfo(
                f.as_raw_handle(),
                SE_FILE_OBJECT,
                DACL_SECURITY_INFORMATION | PROTECTED_DACL_SECURITY_INFORMATION,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                dacl,
                std::ptr::null(),
            )
        };
        if set != ERROR_SUCCESS {
            return Err(io::Error::from_raw_os_error(set as i32));
        }
        Ok(f)
    }

    /// Open the key at `path` for reading, a link opened as itself (and refused: it is not a
    /// regular file); refused when its DACL lets anyone but its owner, SYSTEM and the
    /// Administrators have any access.
    pub(super) fn open(path: &Path, meta: &fs::Metadata) -> io::Result<File> {
        let _ = meta;
        let f = OpenOptions::new()
            .read(true)
            .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT)
            .open(path)?;
        if !f.metadata()?.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the key is not a regular file",
            ));
        }
        if !owner_only(&f)? {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the key's ACL lets others read or write it; give its owner alone access or remove it to make a new one (proposals and checkpoints signed with it are then refused)",
            ));
        }
        Ok(f)
    }

    /// Whether every ACE of `f`'s DACL that allows access is for its owner (or the owner-rights
    /// SID), SYSTEM or the Administrators. A missing (NULL) DACL allows everyone; an ACE of any
    /// kind but plain allow or deny is not understood here and counts as allowing others.
    fn owner_only(f: &File) -> io::Result<bool> {
        let mut owner: PSID = std::ptr::null_mut();
        let mut dacl: *mut ACL = std::ptr::null_mut();
        let mut sd: PSECURITY_DESCRIPTOR = std::ptr::null_mut();
        // SAFETY: the file handle is open for the call; the out-pointers are valid locals; the
        // descriptor returned holds what `owner` and `dacl` point to and is freed below.
        let got = unsafe {
            GetSecurityInfo(
                f.as_raw_handle(),
                SE_FILE_OBJECT,
                OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION,
                &mut owner,
                std::ptr::null_mut(),
                &mut dacl,
                std::ptr::null_mut(),
                &mut sd,
            )
        };
        if got != ERROR_SUCCESS {
            return Err(io::Error::from_raw_os_error(got as i32));
        }
        let _sd = Descriptor(sd);
        if dacl.is_null() {
            return Ok(false);
        }
        let mut size = ACL_SIZE_INFORMATION::default();
        // SAFETY: `dacl` is valid while `_sd` lives; `size` is the struct of the class asked.
        if unsafe {
            GetAclInformation(
                dacl,
                (&raw mut size).cast(),
                std::mem::size_of::<ACL_SIZE_INFORMATION>() as u32,
                AclSizeInformation,
            )
        } == 0
        {
            return Err(io::Error::last_os_error());
        }
        for i in 0..size.AceCount {
            let mut ace: *mut core::ffi::c_void = std::ptr::null_mut();
            // SAFETY: `i` is below the ACL's ACE count; `ace` receives a pointer into `dacl`.
            if unsafe { GetAce(dacl, i, &mut ace) } == 0 {
                return Err(io::Error::last_os_error());
            }
            // SAFETY: every ACE starts with an `ACE_HEADER`.
            let kind = u32::from(unsafe { (*ace.cast::<ACE_HEADER>()).AceType });
            if kind == ACCESS_DENIED_ACE_TYPE {
                continue;
            }
            if kind != ACCESS_ALLOWED_ACE_TYPE {
                return Ok(false);
            }
            // SAFETY: an allow ACE is an `ACCESS_ALLOWED_ACE`, whose SID starts at `SidStart`.
            let sid: PSID =
                unsafe { (&raw mut (*ace.cast::<ACCESS_ALLOWED_ACE>()).SidStart) }.cast();
            // SAFETY: `sid` and `owner` are valid SIDs inside `_sd`, alive for the calls.
            let allowed = unsafe {
                (!owner.is_null() && EqualSid(sid, owner) != 0)
                    || IsWellKnownSid(sid, WinCreatorOwnerRightsSid) != 0
                    || IsWellKnownSid(sid, WinLocalSystemSid) != 0
                    || IsWellKnownSid(sid, WinBuiltinAdministratorsSid) != 0
            };
            if !allowed {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

// The tests check Unix modes; the Windows ACL half is compiled, not run.
#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::fs::OpenOptions;
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};

    #[test]
    fn created_once_private_and_reused() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("cfg").join("lspedit");
        let ws = tmp.path().join("ws");
        let a = KeySource::new(Some(dir.clone()), &ws).key().unwrap();
        let b = KeySource::new(Some(dir.clone()), &ws).key().unwrap();
        assert_eq!(a.bytes, b.bytes);
        let meta = fs::metadata(dir.join(KEY_FILE)).unwrap();
        assert_eq!(meta.mode() & 0o777, 0o600);
        assert_eq!(fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, [KEY_FILE], "no temp file left");
    }

    #[test]
    fn macs_verify_under_their_key_and_domain_only() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        let a = KeySource::new(Some(tmp.path().join("a")), &ws)
            .key()
            .unwrap();
        let b = KeySource::new(Some(tmp.path().join("b")), &ws)
            .key()
            .unwrap();
        let tag = a.mac_hex("patch", b"text");
        assert_eq!(tag.len(), 64);
        assert!(a.verify_hex("patch", b"text", &tag));
        assert!(a.verify_hex("patch", b"text", &tag[..32]));
        assert!(
            !a.verify_hex("patch", b"text", &tag[..30]),
            "under 128 bits"
        );
        assert!(!a.verify_hex("patch", b"text!", &tag));
        assert!(!a.verify_hex("ckpt", b"text", &tag));
        assert!(!b.verify_hex("patch", b"text", &tag));
        assert!(!a.verify_hex("patch", b"text", &tag.to_uppercase()));
    }

    // Regression (issue 44): the key is the person's, not the workspace's, so a proposal signed
    // in one workspace verified in any other of theirs once copied into its `.lspedit/`.
    #[test]
    fn macs_verify_in_their_workspace_only() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("k");
        let key = |ws: &str| {
            KeySource::new(Some(dir.clone()), &tmp.path().join(ws))
                .key()
                .unwrap()
        };
        let (a, b) = (key("ws"), key("other"));
        assert_eq!(a.bytes, b.bytes, "one key");
        let tag = a.mac_hex("patch", b"text");
        assert!(key("ws").verify_hex("patch", b"text", &tag));
        assert!(!b.verify_hex("patch", b"text", &tag));
        // The workspace is length-prefixed: moving bytes between it and the message, or between
        // it and the domain, gives another MAC.
        let ab = key("ab");
        let a_only = key("a");
        assert_ne!(
            ab.mac_hex("patch", b"c"),
            a_only.mac_hex("patch", b"bc"),
            "workspace | message"
        );
        let ws_a = KeySource::new(Some(dir.clone()), Path::new("a"))
            .key()
            .unwrap();
        let ws_pa = KeySource::new(Some(dir.clone()), Path::new("pa"))
            .key()
            .unwrap();
        assert_ne!(
            ws_a.mac_hex("p", b""),
            ws_pa.mac_hex("", b""),
            "domain | workspace"
        );
    }

    #[test]
    fn refused_inside_the_workspace_or_shared_or_malformed() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        fs::create_dir_all(&ws).unwrap();
        let inside = KeySource::new(Some(ws.join(".config/lspedit")), &ws).key();
        assert_eq!(inside.unwrap_err().reason, Reason::IoError);
        assert!(
            !ws.join(".config").exists(),
            "nothing created in the workspace"
        );

        let dir = tmp.path().join("cfg");
        KeySource::new(Some(dir.clone()), &ws).key().unwrap();
        let key = dir.join(KEY_FILE);
        fs::set_permissions(&key, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
        let e = KeySource::new(Some(dir.clone()), &ws).key().unwrap_err();
        assert!(e.message.contains("chmod 600"), "{}", e.message);
        fs::remove_file(&key).unwrap();
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&key)
            .unwrap()
            .write_all(b"short")
            .unwrap();
        let e = KeySource::new(Some(dir), &ws).key().unwrap_err();
        assert!(e.message.contains("not 32 bytes"), "{}", e.message);
    }
}
