// Package web is the browser front end of deathstacks serve: an HTTP
// server with a JSON API and a page embedded in the binary (plain HTML,
// CSS and JavaScript, no build step, nothing fetched from elsewhere) to
// play the configured players, analyse positions with a network's value,
// policy and a live search, replay the games of evaluations and ladders,
// and watch training runs' metrics as they grow.
//
// Everything a client can ask for is bounded: the games held (the least
// recently used is dropped), the searches running at once, their time and
// simulations, and the size of request bodies. Every input is validated,
// and bad input gets a 4xx answer with a JSON error that says what is
// wrong, changing nothing. The server only reads run directories.
package web
