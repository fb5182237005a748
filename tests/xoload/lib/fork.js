// fork.js - node's child_process.fork(): the child, node again through
// process.execPath (readlink of /proc/self/exe), sends its parent one
// message (programs.sh, private.sh).
const cp = require("child_process");
if (process.argv[2] === "child") {
	process.send({ from: "child", n: 42 });
} else {
	const c = cp.fork(__filename, ["child"]);
	c.on("message", (m) => console.log("parent got", JSON.stringify(m)));
	c.on("exit", (code) => console.log("child exit", code));
}
