//! The cryptography of AS2, on OpenSSL's CMS (Debian's libssl through the `openssl`
//! crate): detached signatures with the chosen digest, their verification against the
//! partner's certificate only, encryption (AES-CBC as EnvelopedData, AES-GCM as
//! AuthEnvelopedData: RFC 5083/5084) and decryption; RFC 3274 compression (zlib) with
//! RustCrypto's `cms` types, since Debian's OpenSSL is built without zlib; MICs.
//!
//! The `openssl` crate wraps `CMS_sign` but not `CMS_add1_signer`, which is how a
//! signer with a digest other than the key's default (SHA-256) is added: [`sign`] calls
//! it and `CMS_final` through two declarations of OpenSSL's own functions, the only
//! `unsafe` here (ownership noted at each call).

use openssl::cms::{CMSOptions, CmsContentInfo};
use openssl::hash::MessageDigest;
use openssl::pkey::{PKey, Private, Public};
use openssl::stack::Stack;
use openssl::symm::Cipher;
use openssl::x509::X509;
use openssl::x509::store::X509StoreBuilder;

/// A digest of signatures and MICs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Digest {
    /// SHA-1 (read in partners' MDNs only; never chosen for signing here).
    Sha1,
    /// SHA-256.
    Sha256,
    /// SHA-384.
    Sha384,
    /// SHA-512.
    Sha512,
}

impl Digest {
    /// Reads `sha-256`, `sha256`, `SHA256`, … (RFC 5751 names and the common spellings).
    pub fn from_name(name: &str) -> Option<Digest> {
        match name.trim().to_ascii_lowercase().replace('-', "").as_str() {
            "sha1" => Some(Digest::Sha1),
            "sha256" => Some(Digest::Sha256),
            "sha384" => Some(Digest::Sha384),
            "sha512" => Some(Digest::Sha512),
            _ => None,
        }
    }

    /// The RFC 5751 `micalg` name (`sha-256`).
    pub fn micalg(self) -> &'static str {
        match self {
            Digest::Sha1 => "sha-1",
            Digest::Sha256 => "sha-256",
            Digest::Sha384 => "sha-384",
            Digest::Sha512 => "sha-512",
        }
    }

    fn md(self) -> MessageDigest {
        match self {
            Digest::Sha1 => MessageDigest::sha1(),
            Digest::Sha256 => MessageDigest::sha256(),
            Digest::Sha384 => MessageDigest::sha384(),
            Digest::Sha512 => MessageDigest::sha512(),
        }
    }

    /// The base64 digest of `bytes` (the MIC value).
    pub fn mic(self, bytes: &[u8]) -> String {
        use base64::Engine;
        let d = openssl::hash::hash(self.md(), bytes)
            .map(|d| d.to_vec())
            .unwrap_or_default();
        base64::engine::general_purpose::STANDARD.encode(d)
    }
}

/// A content encryption algorithm of the settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encryption {
    /// AES-128-CBC (EnvelopedData).
    Aes128Cbc,
    /// AES-256-CBC (EnvelopedData).
    Aes256Cbc,
    /// AES-128-GCM (AuthEnvelopedData, RFC 5084).
    Aes128Gcm,
    /// AES-256-GCM (AuthEnvelopedData, RFC 5084).
    Aes256Gcm,
}

impl Encryption {
    /// The settings' names: `aes128-cbc`, `aes256-cbc`, `aes128-gcm`, `aes256-gcm`.
    pub fn from_name(name: &str) -> Option<Encryption> {
        match name {
            "aes128-cbc" => Some(Encryption::Aes128Cbc),
            "aes256-cbc" => Some(Encryption::Aes256Cbc),
            "aes128-gcm" => Some(Encryption::Aes128Gcm),
            "aes256-gcm" => Some(Encryption::Aes256Gcm),
            _ => None,
        }
    }

    fn cipher(self) -> Cipher {
        match self {
            Encryption::Aes128Cbc => Cipher::aes_128_cbc(),
            Encryption::Aes256Cbc => Cipher::aes_256_cbc(),
            Encryption::Aes128Gcm => Cipher::aes_128_gcm(),
            Encryption::Aes256Gcm => Cipher::aes_256_gcm(),
        }
    }
}

/// The first error of OpenSSL's stack, for people.
fn why(e: openssl::error::ErrorStack) -> String {
    e.errors()
        .first()
        .map(|e| {
            e.reason()
                .map(str::to_string)
                .unwrap_or_else(|| e.to_string())
        })
        .unwrap_or_else(|| "OpenSSL gave no reason".to_string())
}

/// One X.509 certificate from PEM text (the first of the text); its key must be RSA.
pub fn certificate(pem: &str) -> Result<X509, String> {
    let cert = X509::from_pem(pem.as_bytes())
        .map_err(|_| "not a PEM X.509 certificate (-----BEGIN CERTIFICATE-----)".to_string())?;
    let key = cert
        .public_key()
        .map_err(|e| format!("the certificate's key cannot be read: {}", why(e)))?;
    if key.rsa().is_err() {
        return Err("the certificate's key is not RSA (AS2 signs and encrypts with RSA)".into());
    }
    Ok(cert)
}

/// A private key from PEM text (PKCS#8 or PKCS#1, not encrypted); it must be RSA.
pub fn private_key(pem: &str) -> Result<PKey<Private>, String> {
    if pem.contains("ENCRYPTED") {
        return Err(
            "the private key is encrypted: give it without a passphrase (openssl pkey -in KEY -out PLAIN)"
                .into(),
        );
    }
    let key = PKey::private_key_from_pem(pem.as_bytes())
        .map_err(|_| "not a PEM private key (-----BEGIN PRIVATE KEY-----)".to_string())?;
    if key.rsa().is_err() {
        return Err("the private key is not RSA (AS2 signs and decrypts with RSA)".into());
    }
    Ok(key)
}

/// True when `key` is the private half of `cert`'s key.
pub fn matches(cert: &X509, key: &PKey<Private>) -> bool {
    cert.public_key()
        .map(|p: PKey<Public>| p.public_eq(key))
        .unwrap_or(false)
}

/// What people see of a certificate: subject, issuer, serial, validity, SHA-256.
pub fn describe(cert: &X509) -> serde_json::Value {
    let name = |n: &openssl::x509::X509NameRef| {
        n.entries()
            .map(|e| {
                format!(
                    "{}={}",
                    e.object().nid().short_name().unwrap_or("?"),
                    String::from_utf8_lossy(e.data().as_slice())
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let fingerprint = cert
        .digest(MessageDigest::sha256())
        .map(|d| hex::encode(d.as_ref()))
        .unwrap_or_default();
    serde_json::json!({
        "subject": name(cert.subject_name()),
        "issuer": name(cert.issuer_name()),
        "serial": cert.serial_number().to_bn().ok().and_then(|b| b.to_hex_str().ok()).map(|s| s.to_string()),
        "notBefore": cert.not_before().to_string(),
        "notAfter": cert.not_after().to_string(),
        "expired": expired(cert),
        "sha256": fingerprint,
    })
}

/// True when the certificate's validity has ended.
pub fn expired(cert: &X509) -> bool {
    openssl::asn1::Asn1Time::days_from_now(0)
        .ok()
        .and_then(|now| cert.not_after().compare(&now).ok())
        .is_some_and(|o| o == std::cmp::Ordering::Less)
}

mod ffi {
    use libc::{c_int, c_uint, c_void};
    use openssl_sys::{BIO, CMS_ContentInfo, EVP_MD, EVP_PKEY, X509};

    unsafe extern "C" {
        // OpenSSL 1.1+ (cms.h): adds a signer; references `signer` and `pk` (up-refs
        // them), returns the new SignerInfo owned by `cms`, or NULL on error.
        pub fn CMS_add1_signer(
            cms: *mut CMS_ContentInfo,
            signer: *mut X509,
            pk: *mut EVP_PKEY,
            md: *const EVP_MD,
            flags: c_uint,
        ) -> *mut c_void;
        // Frees a BIO (openssl-sys declares it only for some OpenSSL configurations).
        pub fn BIO_free(bio: *mut BIO) -> c_int;
        // Computes the signatures of a CMS_PARTIAL structure over `data`; 1 on success.
        pub fn CMS_final(
            cms: *mut CMS_ContentInfo,
            data: *mut BIO,
            dcont: *mut BIO,
            flags: c_uint,
        ) -> c_int;
    }
}

/// A detached CMS signature (DER) of `content` by `cert`/`key` with `digest`, its
/// certificate included, with signed attributes (content type, signing time, message
/// digest, S/MIME capabilities).
pub fn sign(
    cert: &X509,
    key: &PKey<Private>,
    digest: Digest,
    content: &[u8],
) -> Result<Vec<u8>, String> {
    use foreign_types::ForeignType;
    let flags = CMSOptions::DETACHED | CMSOptions::BINARY;
    let cms = CmsContentInfo::sign::<Private>(None, None, None, None, flags | CMSOptions::PARTIAL)
        .map_err(why)?;
    let len =
        libc::c_int::try_from(content.len()).map_err(|_| "the content is too large to sign")?;
    // SAFETY: every pointer is a live OpenSSL object owned by a Rust wrapper that outlives
    // the calls (cms, cert, key, the static digest); CMS_add1_signer takes its own
    // references; the memory BIO only reads `content`, which outlives it, and is freed
    // here, after CMS_final, which does not keep it.
    unsafe {
        let si = ffi::CMS_add1_signer(
            cms.as_ptr(),
            cert.as_ptr(),
            key.as_ptr(),
            digest.md().as_ptr(),
            0,
        );
        if si.is_null() {
            return Err(format!(
                "cannot add the signer: {}",
                why(openssl::error::ErrorStack::get())
            ));
        }
        let bio = openssl_sys::BIO_new_mem_buf(content.as_ptr().cast(), len);
        if bio.is_null() {
            return Err(why(openssl::error::ErrorStack::get()));
        }
        let ok = ffi::CMS_final(cms.as_ptr(), bio, std::ptr::null_mut(), flags.bits());
        ffi::BIO_free(bio);
        if ok != 1 {
            return Err(format!(
                "cannot sign: {}",
                why(openssl::error::ErrorStack::get())
            ));
        }
    }
    cms.to_der().map_err(why)
}

/// Verifies a detached CMS signature (DER) of `content`: it must be by the key of
/// `partner` (the pinned certificate; certificates carried in the message are not
/// trusted), and the content must be what was signed.
pub fn verify(signature: &[u8], content: &[u8], partner: &X509) -> Result<(), String> {
    let mut cms = CmsContentInfo::from_der(signature)
        .map_err(|_| "the signature is not a CMS structure".to_string())?;
    let mut certs = Stack::new().map_err(why)?;
    certs.push(partner.clone()).map_err(why)?;
    let store = X509StoreBuilder::new().map_err(why)?.build();
    cms.verify(
        Some(&certs),
        Some(&store),
        Some(content),
        None,
        CMSOptions::NOINTERN | CMSOptions::BINARY | CMSOptions::NO_SIGNER_CERT_VERIFY,
    )
    .map_err(|e| {
        // OpenSSL stacks "verification failure" under "content verify error" when the
        // content's digest is not the signed one: every reason of the stack is read.
        let reason = e
            .errors()
            .iter()
            .filter_map(|e| e.reason())
            .collect::<Vec<_>>()
            .join(": ");
        if reason.contains("signer certificate not found") {
            "the message is not signed by the partner's certificate".to_string()
        } else if reason.contains("content verify error") {
            "the signed content was altered (its digest does not match the signature)".to_string()
        } else {
            format!("the signature does not verify: {reason}")
        }
    })
}

/// `content` encrypted for `recipient` (CMS DER): EnvelopedData for CBC,
/// AuthEnvelopedData for GCM; the content key wrapped with RSA PKCS#1 v1.5.
pub fn encrypt(content: &[u8], recipient: &X509, alg: Encryption) -> Result<Vec<u8>, String> {
    let mut certs = Stack::new().map_err(why)?;
    certs.push(recipient.clone()).map_err(why)?;
    CmsContentInfo::encrypt(&certs, content, alg.cipher(), CMSOptions::BINARY)
        .and_then(|c| c.to_der())
        .map_err(|e| format!("cannot encrypt: {}", why(e)))
}

/// Decrypts CMS EnvelopedData or AuthEnvelopedData (DER) with our key and certificate.
pub fn decrypt(der: &[u8], cert: &X509, key: &PKey<Private>) -> Result<Vec<u8>, String> {
    let cms = CmsContentInfo::from_der(der)
        .map_err(|_| "the encrypted part is not a CMS structure".to_string())?;
    cms.decrypt(key, cert)
        .map_err(|e| format!("cannot decrypt with our key: {}", why(e)))
}

const ID_DATA: &str = "1.2.840.113549.1.7.1";
const ID_COMPRESSED_DATA: &str = "1.2.840.113549.1.9.16.1.9";
const ID_ZLIB: &str = "1.2.840.113549.1.9.16.3.8";

/// `content` as RFC 3274 CompressedData (zlib), DER.
pub fn compress(content: &[u8]) -> Result<Vec<u8>, String> {
    use cms::cert::x509::der::asn1::{ObjectIdentifier, OctetString};
    use cms::cert::x509::der::{Any, Encode};
    use std::io::Write;
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(content).map_err(|e| e.to_string())?;
    let zipped = z.finish().map_err(|e| e.to_string())?;
    let oid = ObjectIdentifier::new_unwrap;
    let inner = OctetString::new(zipped).map_err(|e| e.to_string())?;
    let data = cms::compressed_data::CompressedData {
        version: cms::content_info::CmsVersion::V0,
        compression_alg: cms::cert::x509::spki::AlgorithmIdentifierOwned {
            oid: oid(ID_ZLIB),
            parameters: None,
        },
        encap_content_info: cms::signed_data::EncapsulatedContentInfo {
            econtent_type: oid(ID_DATA),
            econtent: Some(Any::encode_from(&inner).map_err(|e| e.to_string())?),
        },
    };
    cms::content_info::ContentInfo {
        content_type: oid(ID_COMPRESSED_DATA),
        content: Any::encode_from(&data).map_err(|e| e.to_string())?,
    }
    .to_der()
    .map_err(|e| e.to_string())
}

/// The content of RFC 3274 CompressedData (DER); at most `limit` bytes once inflated.
pub fn decompress(der: &[u8], limit: usize) -> Result<Vec<u8>, String> {
    use cms::cert::x509::der::Decode;
    use cms::cert::x509::der::asn1::OctetString;
    use std::io::Read;
    let bad = |what: &str| format!("the compressed part is not RFC 3274 CompressedData: {what}");
    let info = cms::content_info::ContentInfo::from_der(der).map_err(|e| bad(&e.to_string()))?;
    if info.content_type.to_string() != ID_COMPRESSED_DATA {
        return Err(bad("another content type"));
    }
    let data: cms::compressed_data::CompressedData =
        info.content.decode_as().map_err(|e| bad(&e.to_string()))?;
    if data.compression_alg.oid.to_string() != ID_ZLIB {
        return Err(bad("a compression other than zlib"));
    }
    let inner: OctetString = data
        .encap_content_info
        .econtent
        .ok_or_else(|| bad("no content"))?
        .decode_as()
        .map_err(|e| bad(&e.to_string()))?;
    let mut out = Vec::new();
    flate2::read::ZlibDecoder::new(inner.as_bytes())
        .take(limit as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("the compressed content does not inflate: {e}"))?;
    if out.len() > limit {
        return Err(format!(
            "the compressed content inflates beyond {limit} bytes"
        ));
    }
    Ok(out)
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use openssl::asn1::Asn1Time;
    use openssl::bn::BigNum;
    use openssl::rsa::Rsa;
    use openssl::x509::X509NameBuilder;

    /// A self-signed RSA certificate and its key, for tests.
    pub fn identity(cn: &str) -> (X509, PKey<Private>) {
        let key = PKey::from_rsa(Rsa::generate(2048).unwrap()).unwrap();
        let mut name = X509NameBuilder::new().unwrap();
        name.append_entry_by_text("CN", cn).unwrap();
        let name = name.build();
        let mut b = X509::builder().unwrap();
        b.set_version(2).unwrap();
        b.set_serial_number(&BigNum::from_u32(7).unwrap().to_asn1_integer().unwrap())
            .unwrap();
        b.set_subject_name(&name).unwrap();
        b.set_issuer_name(&name).unwrap();
        b.set_pubkey(&key).unwrap();
        b.set_not_before(&Asn1Time::days_from_now(0).unwrap())
            .unwrap();
        b.set_not_after(&Asn1Time::days_from_now(30).unwrap())
            .unwrap();
        b.sign(&key, MessageDigest::sha256()).unwrap();
        (b.build(), key)
    }

    #[test]
    fn signatures_verify_only_with_the_signers_certificate_and_content() {
        let (cert, key) = identity("a");
        let (other, _) = identity("b");
        for d in [Digest::Sha256, Digest::Sha384, Digest::Sha512] {
            let sig = sign(&cert, &key, d, b"ISA*00~").unwrap();
            verify(&sig, b"ISA*00~", &cert).unwrap();
            let e = verify(&sig, b"ISA*01~", &cert).unwrap_err();
            assert!(e.contains("altered"), "{e}");
            let e = verify(&sig, b"ISA*00~", &other).unwrap_err();
            assert!(e.contains("not signed by the partner"), "{e}");
        }
        assert!(verify(b"junk", b"x", &cert).is_err());
    }

    #[test]
    fn encryption_round_trips_for_every_algorithm() {
        let (cert, key) = identity("a");
        let (other, other_key) = identity("b");
        for alg in ["aes128-cbc", "aes256-cbc", "aes128-gcm", "aes256-gcm"] {
            let alg = Encryption::from_name(alg).unwrap();
            let sealed = encrypt(b"hello AS2", &cert, alg).unwrap();
            assert_eq!(decrypt(&sealed, &cert, &key).unwrap(), b"hello AS2");
            assert!(decrypt(&sealed, &other, &other_key).is_err());
        }
    }

    #[test]
    fn compression_round_trips_and_is_bounded() {
        let text = b"ISA*00*          ~".repeat(100);
        let z = compress(&text).unwrap();
        assert!(z.len() < text.len());
        assert_eq!(decompress(&z, 1 << 20).unwrap(), text);
        assert!(decompress(&z, 10).unwrap_err().contains("beyond"));
        assert!(decompress(b"\x30\x03\x02\x01\x00", 10).is_err());
    }

    #[test]
    fn keys_and_certificates_are_checked() {
        let (cert, key) = identity("a");
        let (_, other_key) = identity("b");
        let pem = String::from_utf8(cert.to_pem().unwrap()).unwrap();
        let key_pem = String::from_utf8(key.private_key_to_pem_pkcs8().unwrap()).unwrap();
        assert!(certificate(&pem).is_ok());
        assert!(certificate("nope").is_err());
        let k = private_key(&key_pem).unwrap();
        assert!(matches(&cert, &k));
        assert!(!matches(&cert, &other_key));
        assert!(private_key(&pem).is_err());
        assert_eq!(describe(&cert)["expired"], false);
        assert_eq!(Digest::from_name("SHA256"), Some(Digest::Sha256));
        assert_eq!(Digest::from_name("sha-512"), Some(Digest::Sha512));
        assert_eq!(Digest::from_name("md5"), None);
    }
}
