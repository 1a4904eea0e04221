/**
 * `platctl validate`: is the platform healthy, and if not, exactly what is broken. Its flow is validate/command.ts;
 * this file passes it the project's loading, this process's streams and signal handling, metrics and tracing.
 */
import { validateCommand } from '../validate/command.js';
import { withMetrics } from './metrics.js';
import { withTracing } from './tracing.js';
import { loadConfigOnly, loadProject } from './project.js';
import { handleInterruptions, interruptedOr } from './signals.js';
import { isLiveTerminal, plainHeartbeat } from './terminal.js';
import { defineVerb } from './verb.js';
import { VALIDATE_GRAMMAR } from './commands/validate.js';

export const validateVerb = defineVerb(VALIDATE_GRAMMAR, (args, io) =>
  withTracing('validate', args, io, (tracer) =>
    withMetrics('validate', args, io, (metrics) =>
      validateCommand(args, {
        loadConfig: () => loadConfigOnly(args, io),
        loadUnits: () => loadProject({ ...args, allowUnresolved: args['allow-unresolved'], withRemoteState: true }, io),
        stdout: io.stdout,
        stderr: io.stderr,
        env: io.env,
        color: io.color,
        signal: io.signal,
        heartbeat: isLiveTerminal(io.stdout) ? undefined : plainHeartbeat(io),
        readParkViews: async (root, config) => (await import('./park-status.js')).readParkStatus(root, config, io.env),
        starting: (envs) => {
          metrics.envs(envs);
          tracer.envs(envs);
          // The first SIGINT/SIGTERM ends the checks and still prints the report (a cron `timeout` gets one too).
          handleInterruptions();
        },
        onResult: (result) => tracer.checkResult(result),
        onReport: (report) => metrics.validate(report),
        interruptedOr: (code) => interruptedOr(io.signal, code),
      }),
    ),
  ),
);
