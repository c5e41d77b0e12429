package dev.floe.kafka;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/** The two loopback ports of a combined broker + controller node. */
record BrokerPorts(int broker, int controller) {
  static final String HOST = "127.0.0.1";

  /** Two distinct ports the OS reports free right now (both sockets held open while picking). */
  static BrokerPorts pickFree() {
    try (ServerSocket first = bindLoopback(0);
        ServerSocket second = bindLoopback(0)) {
      return new BrokerPorts(first.getLocalPort(), second.getLocalPort());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot find free loopback ports", e);
    }
  }

  /** True when both ports can be bound on loopback right now. */
  boolean free() {
    try (ServerSocket _ = bindLoopback(broker);
        ServerSocket _ = bindLoopback(controller)) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  String bootstrapServers() {
    return HOST + ":" + broker;
  }

  private static ServerSocket bindLoopback(int port) throws IOException {
    ServerSocket socket = new ServerSocket();
    try {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(InetAddress.getByName(HOST), port));
      return socket;
    } catch (IOException e) {
      socket.close();
      throw e;
    }
  }
}
