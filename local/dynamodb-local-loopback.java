// DynamoDB Local on 127.0.0.1 only. Its jar has no host option: Jetty's `new Server(port)`
// listens on every interface. This launcher builds the server exactly as the jar's own main
// does, sets the host of its one connector to 127.0.0.1, and starts it. It also never turns on
// telemetry (the jar's main would unless -disableTelemetry is given). With
// -Dinkpress.stopAtEndOfInput=true it exits when its standard input ends, so a run that records
// a class archive (local/dynamodb-local-class-archive.ts) never outlives the process driving it.
// Compiled once by local/emulators.ts with the jar on the class path.
import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

class DynamoDbLocalLoopback {
  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    Connector[] connectors = server.getConnectors();
    if (connectors.length == 0) throw new IllegalStateException("DynamoDB Local has no connector");
    for (Connector connector : connectors) ((ServerConnector) connector).setHost("127.0.0.1");
    proxy.start();
    if (Boolean.getBoolean("inkpress.stopAtEndOfInput")) {
      Thread watcher = new Thread(() -> {
        try {
          while (System.in.read() != -1) {}
        } catch (java.io.IOException ignored) {
          // the input is gone as well
        }
        System.exit(0);
      });
      watcher.setDaemon(true);
      watcher.start();
    }
  }
}
