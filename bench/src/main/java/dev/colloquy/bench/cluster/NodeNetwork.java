package dev.colloquy.bench.cluster;

import dev.colloquy.persistence.PlannedPort;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * Where the nodes of a {@link LocalCluster} live on the network: the address each node listens on,
 * its ports, how its process is launched, and the address the services they share (PostgreSQL, the
 * mock model) listen on for them.
 */
public interface NodeNetwork {

  /** Every node on loopback in this machine's own network, each with free ports of its own. */
  NodeNetwork LOOPBACK = new NodeNetwork() {
    @Override
    public String nodeHost(int node) {
      return "127.0.0.1";
    }

    @Override
    public NodePorts ports(int node) throws IOException {
      return new NodePorts(
          PlannedPort.forAnotherServer(), PlannedPort.forAnotherServer(), PlannedPort.forAnotherServer());
    }

    @Override
    public List<String> launcher(int node) {
      return List.of();
    }

    @Override
    public String servicesHost() {
      return "127.0.0.1";
    }

    @Override
    public Optional<String> nodesSubnet() {
      return Optional.empty();
    }
  };

  /** The HTTP API, Artery and management ports of one node. */
  record NodePorts(int http, int cluster, int management) {}

  /** The address node {@code node} binds its HTTP, cluster and management ports to. */
  String nodeHost(int node);

  NodePorts ports(int node) throws IOException;

  /** What the node's {@code java} command line is prefixed with (e.g. entering a network namespace). */
  List<String> launcher(int node);

  /** The address PostgreSQL and the mock model listen on, as the nodes reach them. */
  String servicesHost();

  /** The nodes' subnet (CIDR) when they reach PostgreSQL from outside loopback: it is let in. */
  Optional<String> nodesSubnet();
}
