// Package distributed trains one network on many machines over NATS
// JetStream: a learner (the usual training loop of package train, with an
// embedded NATS server or an existing cluster) publishes each new network
// to an object store and names the current one in a key-value entry;
// actors on other machines fetch the run's config and that network, play
// self-play games with the run's search settings and send each finished
// game to a stream, which the learner reads by sequence number.
//
// Every game carries its actor's id and a per-actor counter: the actor
// publishes it with that id as the message id and retries with the same
// id until the server acknowledges it, so a game sent twice is stored
// once; the learner also drops any game whose counter it has already
// taken. The stream sequence reached and those counters go into the
// learner's checkpoint, so a learner killed at any moment resumes without
// losing or repeating a game.
//
// An actor publishes its games in windows of asynchronous publishes; a
// full queue holds its self-play back. The learner reads, checks and
// replays the games on every core, also while the run trains, from the
// moment the run knows where it goes on from (it is a
// [remotegames.ReadAheadSource]). [Simulate]
// is a load generator: simulated actors sending real games again. The
// stream, bucket and object store may be replicated over a NATS cluster
// (distributed.replicas).
package distributed
