import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes connections that send nothing: one that has not completed a request head within
/// `headerTimeout` of opening (or of the first byte of its next request), and a keep-alive connection
/// with no request in flight for `idleTimeout`. A request in flight, an open stream included, is never
/// timed out here.
///
/// Two handlers share one of these: `ConnectionWatcher` at the front of the pipeline sees bytes arrive,
/// `RequestLifecycleWatcher` after the HTTP codec sees request heads and response ends. Both run on the
/// connection's event loop, which is the only place this object is touched.
final class ConnectionDeadlines {
    private let headerTimeout: TimeAmount
    private let idleTimeout: TimeAmount
    private var requestsInFlight = 0
    private var waitingForHead = true
    /// When the connection is closed unless something happens first; nil while a request is in flight.
    private var deadline: NIODeadline?
    private var timer: Scheduled<Void>?
    private var timerFires: NIODeadline?

    init(headerTimeout: TimeAmount, idleTimeout: TimeAmount) {
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
    }

    func connectionOpened(_ channel: any Channel) {
        arm(headerTimeout, channel)
    }

    func bytesArrived(_ channel: any Channel) {
        guard requestsInFlight == 0, !waitingForHead else { return }
        waitingForHead = true
        arm(headerTimeout, channel)
    }

    func headReceived() {
        requestsInFlight += 1
        waitingForHead = false
        deadline = nil
    }

    func responseEnded(_ channel: any Channel) {
        requestsInFlight = max(0, requestsInFlight - 1)
        if requestsInFlight == 0 {
            waitingForHead = false
            arm(idleTimeout, channel)
        }
    }

    func connectionClosed() {
        cancelTimer()
    }

    /// The request in flight is a stream, which may stay open for hours: no timer is needed until it ends.
    func streamStarted() {
        cancelTimer()
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
        timerFires = nil
        deadline = nil
    }

    /// Moves the deadline; a timer is scheduled only when none is pending, and checks again when it fires,
    /// so a busy connection does not schedule a task per request.
    private func arm(_ timeout: TimeAmount, _ channel: any Channel) {
        let when = NIODeadline.now() + timeout
        deadline = when
        if let timerFires, timerFires <= when { return }
        timer?.cancel()
        schedule(at: when, channel)
    }

    private func schedule(at when: NIODeadline, _ channel: any Channel) {
        let eventLoop = channel.eventLoop
        let bound = NIOLoopBound(self, eventLoop: eventLoop)
        timerFires = when
        timer = eventLoop.assumeIsolated().scheduleTask(deadline: when) {
            bound.value.fire(channel)
        }
    }

    private func fire(_ channel: any Channel) {
        timer = nil
        timerFires = nil
        guard let deadline else { return }
        if deadline <= .now() {
            channel.close(promise: nil)
        } else {
            schedule(at: deadline, channel)
        }
    }
}
