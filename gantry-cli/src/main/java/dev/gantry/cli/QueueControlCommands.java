package dev.gantry.cli;

import dev.gantry.db.Durations;
import dev.gantry.queue.QueueLimits;
import dev.gantry.queue.Queues;
import dev.gantry.queue.Ramp;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code gantry queue pause|resume|limit QUEUE}: what an operator sets on a queue to hold a backlog back from a
 * database that is recovering and let it in gradually. Each prints the queue's setting afterwards.
 */
final class QueueControlCommands {
    private QueueControlCommands() {
    }

    @Command(name = "pause", mixinStandardHelpOptions = true, versionProvider = GantryCommand.ManifestVersion.class,
            description = {"Stop claims from a queue; enqueues go on. Undo with: gantry queue resume QUEUE",
                QueueCommand.DATABASE})
    static final class Pause implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(paramLabel = "QUEUE", description = "The queue's name, as `gantry queue stats` shows it.")
        String queue;

        @Override
        public Integer call() {
            return QueueCommand.run(spec, queues -> {
                queues.pause(queue);
                return printSetting(spec, queues, queue);
            });
        }
    }

    @Command(name = "resume", mixinStandardHelpOptions = true,
            versionProvider = GantryCommand.ManifestVersion.class,
            description = {"Let claims from a queue start again, at once or with a ramp: its limits rise from a "
                + "fraction to full over a period (the queue needs limits, see gantry queue limit).",
                QueueCommand.DATABASE})
    static final class Resume implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(paramLabel = "QUEUE", description = "The queue's name, as `gantry queue stats` shows it.")
        String queue;

        @Option(names = "--ramp-from", paramLabel = "FRACTION",
                description = "Start at this fraction of the queue's limits, e.g. 0.1; needs --ramp-over.")
        Double rampFrom;

        @Option(names = "--ramp-over", paramLabel = "DURATION", converter = DurationConverter.class,
                description = "Reach the full limits after this long, e.g. 90s, 10m or 1h; needs --ramp-from.")
        Duration rampOver;

        @Override
        public Integer call() {
            return QueueCommand.run(spec, queues -> {
                if ((rampFrom == null) != (rampOver == null)) {
                    throw new IllegalArgumentException("--ramp-from and --ramp-over go together");
                }
                queues.resume(queue, rampFrom == null ? Ramp.NONE : new Ramp(rampFrom, rampOver));
                return printSetting(spec, queues, queue);
            });
        }
    }

    @Command(name = "limit", mixinStandardHelpOptions = true, versionProvider = GantryCommand.ManifestVersion.class,
            description = {"Set a queue's limits; a limit not given is lifted, so with neither the queue is "
                + "unlimited.", QueueCommand.DATABASE})
    static final class Limit implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(paramLabel = "QUEUE", description = "The queue's name, as `gantry queue stats` shows it.")
        String queue;

        @Option(names = "--max-running", paramLabel = "N",
                description = "At most N of its messages held by workers at once, across all processes.")
        Integer maxRunning;

        @Option(names = "--max-per-second", paramLabel = "X",
                description = "At most X claims per second, in each process.")
        Double maxPerSecond;

        @Override
        public Integer call() {
            return QueueCommand.run(spec, queues -> {
                queues.limit(queue, new QueueLimits(maxRunning, maxPerSecond));
                return printSetting(spec, queues, queue);
            });
        }
    }

    private static int printSetting(CommandSpec spec, Queues queues, String queue) {
        PrintWriter out = spec.commandLine().getOut();
        String setting = queues.controls().stream().filter(c -> c.queue().equals(queue)).findFirst()
                .flatMap(c -> QueueStatsCommand.describe(c, Instant.now())).orElse("runs unpaused and unlimited");
        out.println(queue + ": " + setting);
        out.flush();
        return 0;
    }

    /** {@code 90s}, {@code 10m}, {@code 1h}, as Gantry's settings write them ({@link Durations}). */
    static final class DurationConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String text) {
            return Durations.parse(text).orElseThrow(() -> new TypeConversionException("a duration is a whole "
                    + "number with s, m or h, e.g. 90s, 10m or 1h; got '" + text + "'"));
        }
    }
}
