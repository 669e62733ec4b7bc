package dev.gantry.notify.http;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.function.Function;

/**
 * Which hosts the server may connect to on a project's behalf, so that a repository URL or a webhook cannot make it
 * probe the networks it sits in ({@code http://127.0.0.1:5432}, the cloud metadata address
 * {@code 169.254.169.254}): by default only hosts on public addresses; an admin allows loopback, link-local, private
 * and shared networks with {@code GANTRY_ALLOW_PRIVATE_NETWORKS} ({@code --allow-private-networks}). One rule for
 * the repository fetches and every outbound delivery. A host that resolves to any forbidden address is refused; one
 * that does not resolve is let through (the connection then fails on it). Immutable.
 *
 * @param privateNetworks hosts on loopback, link-local and private networks are allowed
 */
public record AddressRule(boolean privateNetworks) {
    /** The environment variable (and, as a flag, {@code --allow-private-networks}) that allows private networks. */
    public static final String PRIVATE_VARIABLE = "GANTRY_ALLOW_PRIVATE_NETWORKS";
    public static final AddressRule PUBLIC_ONLY = new AddressRule(false);
    public static final AddressRule ANY_NETWORK = new AddressRule(true);

    /** Whether {@code host} (a name, an address, or an IPv6 address in brackets) may be connected to. */
    public boolean allows(String host) {
        return allows(host, AddressRule::resolve);
    }

    /** {@link #allows(String)} with {@code resolve} giving a host's addresses (empty when it does not resolve). */
    public boolean allows(String host, Function<String, InetAddress[]> resolve) {
        if (privateNetworks) {
            return true;
        }
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        String lower = bare.toLowerCase(Locale.ROOT);
        if (lower.equals("localhost") || lower.endsWith(".localhost")) {
            return false;
        }
        for (InetAddress address : resolve.apply(bare)) {
            if (internal(address)) {
                return false;
            }
        }
        return true;
    }

    /** Loopback, link-local, private (RFC 1918, unique local), shared (100.64/10), or the unspecified address. */
    public static boolean internal(InetAddress address) {
        if (address.isLoopbackAddress() || address.isLinkLocalAddress() || address.isSiteLocalAddress()
                || address.isAnyLocalAddress() || address.isMulticastAddress()) {
            return true;
        }
        byte[] bytes = address.getAddress();
        if (address instanceof Inet4Address) {
            int first = bytes[0] & 0xff;
            int second = bytes[1] & 0xff;
            return first == 0 || (first == 100 && second >= 64 && second < 128); // "this network", carrier-grade NAT
        }
        if (address instanceof Inet6Address) {
            return (bytes[0] & 0xfe) == 0xfc; // unique local fc00::/7
        }
        return false;
    }

    /** The system resolver's addresses for {@code host}; empty when it does not resolve. */
    public static InetAddress[] resolve(String host) {
        try {
            return InetAddress.getAllByName(host);
        } catch (UnknownHostException | SecurityException unresolved) {
            return new InetAddress[0];
        }
    }
}
