// Writes the payload (last frame) of the next KV-event message an engine publishes on ZMQ.
// jshell -R-Dzmq=tcp://127.0.0.1:5557 -R-Dout=payload.msgpack \
//   --class-path router/target/infera-router.jar docs/examples/capture-kv-batch.jsh
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMsg;

var ctx = new ZContext();
var sub = ctx.createSocket(SocketType.SUB);
sub.connect(System.getProperty("zmq", "tcp://127.0.0.1:5557"));
sub.subscribe(new byte[0]);
sub.setReceiveTimeOut(60_000);
System.out.println("subscribed; send a request to the engine now");
ZMsg msg = ZMsg.recvMsg(sub);
if (msg == null) {
  System.out.println("no message within 60 s");
} else {
  byte[] payload = msg.getLast().getData();
  java.nio.file.Files.write(java.nio.file.Path.of(System.getProperty("out", "payload.msgpack")), payload);
  System.out.println("frames=" + msg.size() + " payload_bytes=" + payload.length);
}
ctx.close();
/exit
