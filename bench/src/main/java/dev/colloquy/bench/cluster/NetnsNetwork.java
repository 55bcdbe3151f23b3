package dev.colloquy.bench.cluster;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Nodes in Linux network namespaces of their own, each joined by a veth pair to a bridge in this
 * machine's namespace, which holds the address PostgreSQL and the mock model listen on. Taking a
 * node's link down cuts it off from the others and from the database, as a partition does, while its
 * process runs on. Every name carries a random suffix, so runs never meet; {@link #close} (and a
 * shutdown hook, should the JVM end first) removes the namespaces, links and bridge.
 */
public final class NetnsNetwork implements NodeNetwork, AutoCloseable {

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final int HTTP_PORT = 18300;
  private static final int CLUSTER_PORT = 27300;
  private static final int MANAGEMENT_PORT = 18350;

  private final String id;
  private final String subnet;
  private final int size;
  private final Thread cleanup;

  private NetnsNetwork(String id, String subnet, int size) {
    this.id = id;
    this.subnet = subnet;
    this.size = size;
    this.cleanup = new Thread(this::remove, "netns-cleanup-" + id);
  }

  /**
   * Why namespaces cannot be used here (not Linux, not root, {@code ip} or {@code curl} missing, the
   * kernel refuses a namespace), or empty when they can.
   */
  public static Optional<String> unavailable() {
    if (!System.getProperty("os.name").toLowerCase().contains("linux")) {
      return Optional.of("network namespaces are Linux only (this is " + System.getProperty("os.name") + ")");
    }
    if (!onPath("ip")) {
      return Optional.of("the ip command (iproute2) is not installed");
    }
    if (!onPath("curl")) {
      return Optional.of("curl is not installed (it probes a node from inside its namespace)");
    }
    try {
      if (!rootUser()) {
        return Optional.of("creating network namespaces needs root");
      }
      String probe = "colloquy-probe-" + suffix();
      Result added = exec(List.of("ip", "netns", "add", probe));
      if (added.status() != 0) {
        return Optional.of("ip netns add failed: " + added.output().strip());
      }
      exec(List.of("ip", "netns", "del", probe));
      return Optional.empty();
    } catch (IOException | InterruptedException e) {
      return Optional.of("could not run ip: " + e);
    }
  }

  /** Creates a bridge and {@code size} namespaces attached to it, on an unused 10.x.y.0/24. */
  public static NetnsNetwork create(int size) throws IOException, InterruptedException {
    String used = run("ip", "-o", "-4", "addr", "show");
    String prefix;
    do {
      prefix = "10." + (200 + RANDOM.nextInt(50)) + "." + RANDOM.nextInt(256) + ".";
    } while (used.contains(" " + prefix));
    NetnsNetwork network = new NetnsNetwork(suffix(), prefix, size);
    Runtime.getRuntime().addShutdownHook(network.cleanup);
    try {
      network.build();
    } catch (IOException | InterruptedException | RuntimeException e) {
      network.close();
      throw e;
    }
    return network;
  }

  private void build() throws IOException, InterruptedException {
    run("ip", "link", "add", bridge(), "type", "bridge");
    run("ip", "addr", "add", servicesHost() + "/24", "dev", bridge());
    run("ip", "link", "set", bridge(), "up");
    for (int node = 0; node < size; node++) {
      run("ip", "netns", "add", namespace(node));
      run("ip", "link", "add", outerLink(node), "type", "veth", "peer", "name", innerLink(node));
      run("ip", "link", "set", innerLink(node), "netns", namespace(node));
      run("ip", "link", "set", outerLink(node), "master", bridge());
      run("ip", "link", "set", outerLink(node), "up");
      run("ip", "-n", namespace(node), "addr", "add", nodeHost(node) + "/24", "dev", innerLink(node));
      run("ip", "-n", namespace(node), "link", "set", innerLink(node), "up");
      run("ip", "-n", namespace(node), "link", "set", "lo", "up");
    }
  }

  /** The partition: node {@code node}'s link to the bridge goes down; it reaches nobody and nobody reaches it. */
  public void cut(int node) throws IOException, InterruptedException {
    run("ip", "link", "set", outerLink(node), "down");
  }

  /** Ends the partition of {@link #cut}. */
  public void heal(int node) throws IOException, InterruptedException {
    run("ip", "link", "set", outerLink(node), "up");
  }

  /**
   * The HTTP status a client inside node {@code node}'s namespace (on its side of a partition) gets
   * for {@code url}; 0 when nothing answers within {@code seconds}.
   */
  public int statusFromInside(int node, String url, int seconds) throws IOException, InterruptedException {
    Result result = exec(List.of("ip", "netns", "exec", namespace(node), "curl", "-s", "-o", "/dev/null",
        "-w", "%{http_code}", "--max-time", Integer.toString(seconds), url));
    String code = result.output().strip();
    return code.matches("\\d{3}") ? Integer.parseInt(code) : 0;
  }

  public String namespace(int node) {
    return "colloquy-" + id + "-" + node;
  }

  private String bridge() {
    return "cqb" + id;
  }

  private String outerLink(int node) {
    return "cqv" + id + node;
  }

  private String innerLink(int node) {
    return "cqn" + id + node;
  }

  @Override
  public String nodeHost(int node) {
    return subnet + (10 + node);
  }

  /** Each node has its namespace's ports to itself: the same ones for all. */
  @Override
  public NodePorts ports(int node) {
    return new NodePorts(HTTP_PORT, CLUSTER_PORT, MANAGEMENT_PORT);
  }

  @Override
  public List<String> launcher(int node) {
    return List.of(ip(), "netns", "exec", namespace(node));
  }

  @Override
  public String servicesHost() {
    return subnet + "1";
  }

  @Override
  public Optional<String> nodesSubnet() {
    return Optional.of(subnet + "0/24");
  }

  @Override
  public void close() {
    remove();
    try {
      Runtime.getRuntime().removeShutdownHook(cleanup);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs or has run: it removes the same things
    }
  }

  /** Deleting a namespace deletes the veth end inside it and so its peer on the bridge. */
  private void remove() {
    List<List<String>> commands = new ArrayList<>();
    for (int node = 0; node < size; node++) {
      commands.add(List.of("ip", "netns", "del", namespace(node)));
      commands.add(List.of("ip", "link", "del", outerLink(node)));
    }
    commands.add(List.of("ip", "link", "del", bridge()));
    for (List<String> command : commands) {
      try {
        exec(command);
      } catch (IOException | InterruptedException alreadyGone) {
        // removing what is left is all that matters here
      }
    }
  }

  private static String suffix() {
    return HexFormat.of().formatHex(RANDOM.generateSeed(3));
  }

  private static boolean rootUser() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("Uid:")) {
        return line.split("\\s+")[1].equals("0");
      }
    }
    return false;
  }

  private static boolean onPath(String command) {
    List<String> directories = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)));
    directories.addAll(List.of("/usr/sbin", "/sbin"));
    return directories.stream().anyMatch(directory -> Files.isExecutable(Path.of(directory, command)));
  }

  private static String run(String... command) throws IOException, InterruptedException {
    Result result = exec(List.of(command));
    if (result.status() != 0) {
      throw new IOException(String.join(" ", command) + " failed (" + result.status() + "): " + result.output().strip());
    }
    return result.output();
  }

  private record Result(int status, String output) {}

  private static Result exec(List<String> command) throws IOException, InterruptedException {
    List<String> resolved = new ArrayList<>(command);
    if (resolved.getFirst().equals("ip")) {
      resolved.set(0, ip());
    }
    Process process = new ProcessBuilder(resolved).redirectErrorStream(true).start();
    byte[] output = process.getInputStream().readAllBytes();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IOException(String.join(" ", command) + " did not end within 30 s");
    }
    return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8));
  }

  /** {@code ip} from the PATH, or from the sbin directories a non-login PATH may lack. */
  private static String ip() {
    return Stream.concat(Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)),
            Stream.of("/usr/sbin", "/sbin"))
        .filter(directory -> !directory.isEmpty())
        .map(directory -> Path.of(directory, "ip"))
        .filter(Files::isExecutable).findFirst().map(Path::toString).orElse("ip");
  }
}
