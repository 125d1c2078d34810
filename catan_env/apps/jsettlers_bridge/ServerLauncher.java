import java.util.Arrays;

import soc.server.SOCServer;

/** The JSettlers server with more time for its built-in robots: it ends a built-in
 *  robot's turn after 8 s without a move (SOCServer.ROBOT_FORCE_ENDTURN_SECONDS, which
 *  no server property sets), so on a busy machine a starved robot loses turns, or its
 *  set-up settlement.  Arguments: robot_seconds, then the server's own arguments. */
public class ServerLauncher {
    public static void main(String[] args) {
        SOCServer.ROBOT_FORCE_ENDTURN_SECONDS = Integer.parseInt(args[0]);
        System.out.println("catan_env: built-in robots have " + args[0] + " s for a move");
        SOCServer.main(Arrays.copyOfRange(args, 1, args.length));
    }
}
