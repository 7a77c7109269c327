// A cache service for cgmem's JVM example (examples/jvm.toml), the same as
// the Go one (examples/go/main.go): each request to /set stores `batch`
// fresh values under random keys of a fixed key space (16 of 16 KiB: the
// study's 256 KiB a step), so the live heap grows to keys x size and every
// overwrite leaves the old value to the collector.
// Once a second it prints the heap's state to stdout (command.stdout). The
// JVM sizes its heap from memory.max (its container support reads the
// cgroup) and knows nothing of memory.high.
import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.GarbageCollectorMXBean;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;

public final class CacheServer {
  public static void main(String[] args) throws Exception {
    int port = 8080, keys = 8000, size = 16384, batch = 16;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "-port" -> port = Integer.parseInt(args[i + 1]);
        case "-keys" -> keys = Integer.parseInt(args[i + 1]);
        case "-size" -> size = Integer.parseInt(args[i + 1]);
        case "-batch" -> batch = Integer.parseInt(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    final int keySpace = keys, valueSize = size, perRequest = batch;
    ConcurrentHashMap<Integer, byte[]> cache = new ConcurrentHashMap<>(keys);
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 64);
    server.createContext("/set", exchange -> {
      for (int n = 0; n < perRequest; n++) {
        byte[] value = new byte[valueSize];
        for (int i = 0; i < value.length; i += 512) value[i] = (byte) i;  // touch every page
        cache.put(ThreadLocalRandom.current().nextInt(keySpace), value);
      }
      byte[] body = (cache.size() + "\n").getBytes(StandardCharsets.US_ASCII);
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) { out.write(body); }
    });
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.start();
    Runtime rt = Runtime.getRuntime();
    var flags = ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
    System.out.printf("start keys=%d size=%d batch=%d max_heap_size=%s max_ram_percentage=%s gc=%s%n", keys, size, batch,
        flags.getVMOption("MaxHeapSize").getValue(), flags.getVMOption("MaxRAMPercentage").getValue(),
        String.join(",", ManagementFactory.getGarbageCollectorMXBeans().stream().map(GarbageCollectorMXBean::getName).toList()));
    while (true) {
      Thread.sleep(1000);
      long collections = 0, gcMillis = 0;
      for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
        collections += gc.getCollectionCount();
        gcMillis += gc.getCollectionTime();
      }
      System.out.printf("t=%d keys=%d heap_used=%d heap_committed=%d max_heap=%d num_gc=%d gc_ms=%d%n",
          System.currentTimeMillis() / 1000, cache.size(), rt.totalMemory() - rt.freeMemory(), rt.totalMemory(),
          rt.maxMemory(), collections, gcMillis);
    }
  }
}
