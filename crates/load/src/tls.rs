//! https: a rustls client on the ring provider (it builds in the zig-linked
//! manylinux wheel, where aws-lc does not), trusting Mozilla's roots
//! (webpki-roots, the same on every machine) and, with `cacert`, the
//! certificates of a PEM file too; with `insecure`, any certificate at all.
//! ALPN offers http/1.1 only: that is what the generator speaks.

use std::io;
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use serde::Deserialize;
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;
use tokio_rustls::TlsConnector;

use crate::error::LoadError;
use crate::files::read_bounded;

/// Largest `cacert` file read: a bundle of every public root is about 250 KiB.
pub const MAX_CACERT_BYTES: u64 = 1 << 20;

#[derive(Debug, Clone, Default, Deserialize)]
pub struct TlsSettings {
    /// A PEM file whose certificates are trusted beside the built-in roots.
    #[serde(default)]
    pub cacert: Option<String>,
    /// Accept any certificate (the results say so).
    #[serde(default)]
    pub insecure: bool,
}

/// What a connection needs for its handshake: the client's configuration and
/// the name the server's certificate must carry, the URL's host (sent as SNI
/// unless it is an IP address, which the certificate must then list).
pub(crate) struct Tls {
    connector: TlsConnector,
    name: ServerName<'static>,
}

impl Tls {
    pub fn new(settings: &TlsSettings, host: &str) -> Result<Tls, LoadError> {
        let name = ServerName::try_from(host.to_owned())
            .map_err(|_| LoadError::Input(format!("{host} is not a host name a certificate can carry")))?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = ClientConfig::builder_with_provider(Arc::clone(&provider))
            .with_safe_default_protocol_versions()
            .map_err(|e| LoadError::System(format!("TLS: {e}")))?;
        let mut config = if settings.insecure {
            builder.dangerous().with_custom_certificate_verifier(Arc::new(AnyCertificate(provider))).with_no_client_auth()
        } else {
            builder.with_root_certificates(roots(settings.cacert.as_deref())?).with_no_client_auth()
        };
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Tls { connector: TlsConnector::from(Arc::new(config)), name })
    }

    pub async fn handshake(&self, stream: TcpStream) -> io::Result<TlsStream<TcpStream>> {
        self.connector.connect(self.name.clone(), stream).await
    }
}

fn roots(cacert: Option<&str>) -> Result<RootCertStore, LoadError> {
    let mut roots = RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
    let Some(path) = cacert else { return Ok(roots) };
    let bad = |why: String| LoadError::Input(format!("--cacert {path}: {why}"));
    let pem = read_bounded(path, MAX_CACERT_BYTES).map_err(bad)?;
    let mut found = 0;
    for cert in CertificateDer::pem_slice_iter(&pem) {
        let cert = cert.map_err(|e| bad(format!("not a readable PEM file ({e})")))?;
        roots.add(cert).map_err(|e| bad(format!("a certificate in it cannot be trusted ({e})")))?;
        found += 1;
    }
    if found == 0 {
        return Err(bad("holds no PEM certificate (-----BEGIN CERTIFICATE-----)".into()));
    }
    Ok(roots)
}

fn rustls_error(e: &io::Error) -> Option<&rustls::Error> {
    e.get_ref().and_then(|inner| inner.downcast_ref::<rustls::Error>())
}

/// Whether a handshake failed on the server's certificate (which `cacert`
/// or `insecure` could settle), not on the conversation.
pub(crate) fn refused_certificate(e: &io::Error) -> bool {
    matches!(rustls_error(e), Some(rustls::Error::InvalidCertificate(_)))
}

/// Why a handshake failed, in words: rustls's reason when it has one.
pub(crate) fn reason(e: &io::Error) -> String {
    match rustls_error(e) {
        Some(rustls::Error::InvalidCertificate(why)) => format!("the server's certificate is not trusted ({why:?})"),
        Some(rustls::Error::InvalidMessage(_)) => "the server does not answer in TLS (an http:// server?)".into(),
        Some(tls) => tls.to_string(),
        None if e.kind() == io::ErrorKind::UnexpectedEof => "the server closed the connection during the handshake".into(),
        None => e.to_string(),
    }
}

/// `--insecure`: every certificate passes, but the handshake's signatures are
/// still checked (a peer must hold the key of the certificate it shows).
#[derive(Debug)]
struct AnyCertificate(Arc<CryptoProvider>);

impl ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}
