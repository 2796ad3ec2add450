// Replaced by the database template setup (foundation work in progress).
export default function setup() {}
