package io.infera.sim.adversarial;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * A client process of its own that opens {@code n} TCP connections to {@code host:port}, sends
 * nothing, and prints once a second how many the server still holds open: {@code open=K refused=R}.
 * Runs until its standard input closes or {@code seconds} pass. Arguments: host port n seconds.
 */
public final class IdleConnections {

  private IdleConnections() {}

  public static void main(String[] args) throws Exception {
    String host = args[0];
    int port = Integer.parseInt(args[1]);
    int n = Integer.parseInt(args[2]);
    int seconds = Integer.parseInt(args[3]);
    List<SocketChannel> open = new ArrayList<>(n);
    int refused = 0;
    for (int i = 0; i < n; i++) {
      try {
        SocketChannel c = SocketChannel.open();
        c.socket().setSoTimeout(1000);
        c.connect(new InetSocketAddress(host, port));
        c.configureBlocking(false);
        open.add(c);
      } catch (Exception e) {
        refused++;
      }
    }
    System.out.println("connected=" + open.size() + " refused=" + refused);
    System.out.flush();
    ByteBuffer scratch = ByteBuffer.allocate(4096);
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    while (System.nanoTime() < end) {
      int alive = 0;
      for (SocketChannel c : open) {
        if (!c.isOpen()) {
          continue;
        }
        try {
          scratch.clear();
          if (c.read(scratch) < 0) {
            c.close();
          } else {
            alive++;
          }
        } catch (Exception e) {
          c.close();
        }
      }
      System.out.println("open=" + alive + " refused=" + refused);
      System.out.flush();
      if (System.in.available() < 0) {
        break;
      }
      Thread.sleep(1000);
    }
    for (SocketChannel c : open) {
      c.close();
    }
  }
}
