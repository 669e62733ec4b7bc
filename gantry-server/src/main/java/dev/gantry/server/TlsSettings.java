package dev.gantry.server;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * HTTPS beside the HTTP port, for clients that only speak HTTPS: the continuation orb posts to
 * {@code https://<circleci_domain>/api/v2/pipeline/continue}, and a team's scripts may insist too.
 *
 * @param port        the HTTPS port ({@code GANTRY_HTTPS_PORT}); 0 picks a free one
 * @param certificate the PEM file of the server's certificate, followed by its chain ({@code GANTRY_TLS_CERT})
 * @param key         the PEM file of its private key, unencrypted PKCS #8 ({@code BEGIN PRIVATE KEY}), RSA, EC or
 *                    EdDSA ({@code GANTRY_TLS_KEY})
 */
public record TlsSettings(int port, Path certificate, Path key) {
    public static final String PORT_VARIABLE = "GANTRY_HTTPS_PORT";
    public static final String CERTIFICATE_VARIABLE = "GANTRY_TLS_CERT";
    public static final String KEY_VARIABLE = "GANTRY_TLS_KEY";
    /** The password of the in-memory key store only; nothing is written with it. */
    static final char[] KEY_STORE_PASSWORD = "in-memory".toCharArray();

    private static final Pattern PRIVATE_KEY = Pattern.compile(
            "-----BEGIN ([A-Z ]*)PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END \\1PRIVATE KEY-----");

    public TlsSettings {
        Objects.requireNonNull(certificate, "certificate");
        Objects.requireNonNull(key, "key");
        if (!ServerSettings.validPort(port)) {
            throw new IllegalArgumentException("the HTTPS port " + ServerSettings.PORT_RULE + ", got " + port);
        }
    }

    /**
     * The settings of the three variables, or null when none is set.
     *
     * @throws InvalidServerSettingException when only some are set, or one is empty or not a port
     */
    static TlsSettings fromEnvironment(Map<String, String> environment) {
        List<String> variables = List.of(PORT_VARIABLE, CERTIFICATE_VARIABLE, KEY_VARIABLE);
        List<String> set = variables.stream().filter(environment::containsKey).toList();
        if (set.isEmpty()) {
            return null;
        }
        if (set.size() < variables.size()) {
            throw new InvalidServerSettingException("HTTPS needs " + String.join(", ", variables) + " together; "
                    + String.join(", ", set) + (set.size() == 1 ? " is" : " are") + " set without the others");
        }
        for (String variable : variables) {
            if (environment.get(variable).isBlank()) {
                throw new InvalidServerSettingException(variable + " is set but empty");
            }
        }
        String portText = environment.get(PORT_VARIABLE).strip();
        int port;
        try {
            port = Integer.parseInt(portText);
        } catch (NumberFormatException notAnInteger) {
            port = -1;
        }
        if (!ServerSettings.validPort(port)) {
            throw new InvalidServerSettingException(PORT_VARIABLE + " " + ServerSettings.PORT_RULE + ", got '"
                    + portText + "'");
        }
        return new TlsSettings(port, Path.of(environment.get(CERTIFICATE_VARIABLE).strip()),
                Path.of(environment.get(KEY_VARIABLE).strip()));
    }

    /**
     * The certificate chain and its key, read from their files into a key store held in memory.
     *
     * @throws ServerStartException naming the file that is missing or not what it should be
     */
    KeyStore keyStore() {
        List<Certificate> chain = certificates();
        PrivateKey privateKey = privateKey();
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("gantry", privateKey, KEY_STORE_PASSWORD, chain.toArray(Certificate[]::new));
            return store;
        } catch (GeneralSecurityException | IOException e) {
            throw new ServerStartException("The key in " + key + " does not go with the certificate in "
                    + certificate + ": " + e.getMessage(), e);
        }
    }

    private List<Certificate> certificates() {
        try {
            List<? extends Certificate> chain = List.copyOf(CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(Files.readAllBytes(certificate))));
            if (chain.isEmpty()) {
                throw new ServerStartException(CERTIFICATE_VARIABLE + " " + certificate
                        + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)", null);
            }
            return List.copyOf(chain);
        } catch (IOException e) {
            throw new ServerStartException("Cannot read the TLS certificate " + certificate + ": " + e, e);
        } catch (GeneralSecurityException e) {
            throw new ServerStartException("The TLS certificate " + certificate + " is not a PEM X.509 certificate: "
                    + e.getMessage(), e);
        }
    }

    private PrivateKey privateKey() {
        String text;
        try {
            text = Files.readString(key, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new ServerStartException("Cannot read the TLS key " + key + ": " + e, e);
        }
        Matcher pem = PRIVATE_KEY.matcher(text);
        if (!pem.find()) {
            throw new ServerStartException("The TLS key " + key + " holds no PEM private key", null);
        }
        if (!pem.group(1).isEmpty()) {
            throw new ServerStartException("The TLS key " + key + " is in the BEGIN " + pem.group(1)
                    + "PRIVATE KEY form; Gantry reads unencrypted PKCS #8 (BEGIN PRIVATE KEY): convert it with "
                    + "openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8", null);
        }
        byte[] der = Base64.getMimeDecoder().decode(pem.group(2));
        for (String algorithm : List.of("RSA", "EC", "Ed25519", "Ed448")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException notThisAlgorithm) {
                // try the next
            }
        }
        throw new ServerStartException("The TLS key " + key + " is not an RSA, EC or EdDSA private key", null);
    }
}
