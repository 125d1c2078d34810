import java.io.File;
import java.io.IOException;

import soc.baseclient.ServerConnectInfo;
import soc.robot.SOCRobotBrain;
import soc.robot.SOCRobotClient;

/** FAST-strategy JSettlers robots ("droid N") for a local server, in one JVM, pausing
 *  like the server's own robots in a robots-only game.
 *  Arguments: host port cookie count pause_percent ready_file (created once every
 *  robot's client has started; each connects and authenticates just after). */
public class FastRobots {
    public static void main(String[] args) throws IOException {
        final String host = args[0];
        final int port = Integer.parseInt(args[1]);
        final String cookie = args[2];
        final int count = Integer.parseInt(args[3]);
        SOCRobotBrain.BOTS_ONLY_FAST_PAUSE_FACTOR = Integer.parseInt(args[4]) / 100f;
        for (int k = 1; k <= count; k++) {
            new SOCRobotClient(new ServerConnectInfo(host, port, cookie), "droid " + k, "").init();
        }
        new File(args[5]).createNewFile();
    }
}
