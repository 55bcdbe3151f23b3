package dev.colloquy.engine.agent;

import java.math.BigInteger;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Keeps the agent's outbound calls (webhooks, data lookups, web search) away from the network the
 * server sits in: a host that resolves to a loopback, private, link-local, unique-local, shared
 * (100.64/10), multicast or unspecified address is refused unless the operator allows it by name,
 * address or CIDR block ({@code COLLOQUY_EGRESS_ALLOW}). A URL's host is checked at every call.
 */
public final class EgressGuard {

  /** An outbound call the guard refused, with why. */
  public static final class Refused extends Exception {
    Refused(String message) {
      super(message, null, false, false);
    }
  }

  private record Block(byte[] network, int bits) {}

  private final List<String> hosts = new ArrayList<>();
  private final List<Block> blocks = new ArrayList<>();

  public EgressGuard(List<String> allowed) {
    for (String entry : allowed) {
      int slash = entry.indexOf('/');
      if (slash < 0) {
        hosts.add(entry.toLowerCase(Locale.ROOT).replace("[", "").replace("]", ""));
      } else {
        blocks.add(new Block(address(entry.substring(0, slash)).getAddress(), Integer.parseInt(entry.substring(slash + 1))));
      }
    }
  }

  /** Returns when {@code url} may be called; throws with the reason otherwise. */
  public void check(URI url) throws Refused {
    String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new Refused("only http and https URLs may be called");
    }
    String host = url.getHost();
    if (host == null || host.isEmpty()) {
      throw new Refused("the URL has no host");
    }
    String bare = host.toLowerCase(Locale.ROOT).replace("[", "").replace("]", "");
    if (hosts.contains(bare)) {
      return;
    }
    InetAddress[] addresses;
    try {
      addresses = InetAddress.getAllByName(bare);
    } catch (UnknownHostException e) {
      throw new Refused("the host " + host + " does not resolve");
    }
    for (InetAddress resolved : addresses) {
      if (internal(resolved) && !allowed(resolved)) {
        throw new Refused("the host " + host + " resolves to the internal address " + resolved.getHostAddress()
            + ", which COLLOQUY_EGRESS_ALLOW does not allow");
      }
    }
  }

  static boolean internal(InetAddress address) {
    byte[] bytes = address.getAddress();
    if (address.isLoopbackAddress() || address.isSiteLocalAddress() || address.isLinkLocalAddress()
        || address.isAnyLocalAddress() || address.isMulticastAddress()) {
      return true;
    }
    if (bytes.length == 4) {
      int first = bytes[0] & 0xff;
      int second = bytes[1] & 0xff;
      // 100.64.0.0/10 (carrier-grade NAT), 0.0.0.0/8, 192.0.0.0/24 and the benchmark range 198.18.0.0/15.
      return (first == 100 && second >= 64 && second < 128) || first == 0
          || (first == 192 && second == 0 && (bytes[2] & 0xff) == 0) || (first == 198 && (second == 18 || second == 19));
    }
    // fc00::/7 unique local; an IPv4-mapped address is judged as its IPv4 address.
    if ((bytes[0] & 0xfe) == 0xfc) {
      return true;
    }
    if (isIpv4Mapped(bytes)) {
      try {
        return internal(InetAddress.getByAddress(java.util.Arrays.copyOfRange(bytes, 12, 16)));
      } catch (UnknownHostException e) {
        return true;
      }
    }
    return false;
  }

  private static boolean isIpv4Mapped(byte[] bytes) {
    for (int i = 0; i < 10; i++) {
      if (bytes[i] != 0) {
        return false;
      }
    }
    return (bytes[10] & 0xff) == 0xff && (bytes[11] & 0xff) == 0xff;
  }

  private boolean allowed(InetAddress address) {
    if (hosts.contains(address.getHostAddress().toLowerCase(Locale.ROOT))) {
      return true;
    }
    byte[] bytes = address.getAddress();
    for (Block block : blocks) {
      if (block.network().length == bytes.length && samePrefix(block.network(), bytes, block.bits())) {
        return true;
      }
    }
    return false;
  }

  private static boolean samePrefix(byte[] a, byte[] b, int bits) {
    int shift = a.length * 8 - bits;
    return new BigInteger(1, a).shiftRight(shift).equals(new BigInteger(1, b).shiftRight(shift));
  }

  private static InetAddress address(String literal) {
    try {
      return InetAddress.getByName(literal);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("not an address: " + literal, e);
    }
  }
}
