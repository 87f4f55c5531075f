// graphlint for VS Code: starts `graphlint server` (LSP over stdio) for Python files and
// notebooks. The server asks for the `graphlint.*` settings itself (workspace/configuration).
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const [command, ...args] = vscode.workspace.getConfiguration("graphlint").get("command", ["graphlint"]);
  const server = { command, args: [...args, "server"] };
  client = new LanguageClient("graphlint", "graphlint", server, {
    documentSelector: [
      { scheme: "file", language: "python" },
      { scheme: "untitled", language: "python" },
      { notebook: "jupyter-notebook", language: "python" },
    ],
  });
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
