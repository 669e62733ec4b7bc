package dev.gantry.notify.email;

import dev.gantry.notify.Attempt;
import dev.gantry.notify.Channel;
import dev.gantry.notify.BudgetSummary;
import dev.gantry.notify.Event;
import dev.gantry.notify.WorkflowSummary;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.function.Function;
import org.simplejavamail.api.email.Email;
import org.simplejavamail.api.mailer.Mailer;
import org.simplejavamail.api.mailer.config.TransportStrategy;
import org.simplejavamail.email.EmailBuilder;
import org.simplejavamail.mailer.MailerBuilder;

/**
 * E-mail over SMTP through Simple Java Mail: one message per event to all of a destination's recipients, with a
 * plain-text and an HTML body ({@link EmailMessage}) and a {@value #DELIVERY_HEADER} header that stays the same
 * across retries. The server taking the message is delivered; a refused or unreachable server, or a timeout (the
 * settings' connect and total timeouts), is a failure to retry. Thread-safe; one mailer per server.
 */
public final class EmailChannel implements Channel<EmailDestination> {
    public static final String KIND = "email";
    public static final String DELIVERY_HEADER = "X-Gantry-Delivery-Id";

    private final SmtpSettings settings;
    private final Mailer mailer;
    private final InstantSource clock;
    private final Function<Event, EmailMessage> render;

    /** A channel whose messages {@code render} writes: {@link #message} for the events Gantry records. */
    public EmailChannel(SmtpSettings settings, Duration timeout, InstantSource clock,
                        Function<Event, EmailMessage> render) {
        this.settings = settings;
        this.clock = clock;
        this.render = render;
        int millis = (int) timeout.toMillis();
        this.mailer = MailerBuilder.withSMTPServer(settings.host(), settings.port(), settings.user(),
                        settings.password())
                .withTransportStrategy(switch (settings.tls()) {
                    case STARTTLS -> TransportStrategy.SMTP_TLS;
                    case TLS -> TransportStrategy.SMTPS;
                    case NONE -> TransportStrategy.SMTP;
                })
                .withSessionTimeout(millis)
                .withProperty("mail.smtp.connectiontimeout", String.valueOf(millis))
                .withProperty("mail.smtp.timeout", String.valueOf(millis))
                .withProperty("mail.smtp.writetimeout", String.valueOf(millis))
                .buildMailer();
    }

    /** The message of a workflow event or a usage budget alert. */
    public static EmailMessage message(Event event) {
        return event.type() == Event.Type.BUDGET_ALERT ? EmailMessage.of(BudgetSummary.of(event))
                : EmailMessage.of(WorkflowSummary.of(event));
    }

    public SmtpSettings settings() {
        return settings;
    }

    @Override
    public String kind() {
        return KIND;
    }

    @Override
    public Attempt send(EmailDestination destination, Event event, java.util.UUID deliveryId) {
        Instant started = clock.instant();
        long start = System.nanoTime();
        EmailMessage message = render.apply(event);
        Email email = EmailBuilder.startingBlank()
                .from(settings.from())
                .toMultiple(destination.recipients())
                .withSubject(message.subject())
                .withPlainText(message.text())
                .withHTMLText(message.html())
                .withHeader(DELIVERY_HEADER, deliveryId.toString())
                .buildEmail();
        try {
            mailer.sendMail(email).join();
            return new Attempt(started, took(start), null, null, true);
        } catch (RuntimeException failed) {
            return Attempt.failed(started, took(start), "SMTP " + settings.host() + ":" + settings.port()
                    + " failed: " + rootMessage(failed), true);
        }
    }

    private static Duration took(long start) {
        return Duration.ofNanos(System.nanoTime() - start);
    }

    private static String rootMessage(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    }
}
