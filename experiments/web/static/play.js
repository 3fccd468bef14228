// The play page of `saboteur serve`: one seat's view, its legal moves clickable.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  let token = sessionStorage.getItem("saboteur-token");
  let view = null, selected = null, timer = null;
  async function api(method, path, body) {
    const opts = { method, headers: { "Content-Type": "application/json" } };
    if (token) opts.headers["X-Saboteur-Token"] = token;
    if (body !== undefined) opts.body = JSON.stringify(body);
    const r = await fetch(path, opts);
    const data = await r.json();
    if (!r.ok) throw new Error(data.error || r.statusText);
    return data;
  }
  function setToken(t) { token = t; sessionStorage.setItem("saboteur-token", t); }
  function movesOf(card) { return view.moves.filter((m) => m.card === card); }
  async function play(index) {
    $("error").textContent = "";
    try { show(await api("POST", "/api/move", { action: index })); }
    catch (e) { $("error").textContent = e.message; }
  }
  function show(v) {
    view = v;
    if (selected !== null && !v.moves.some((m) => m.card === selected)) selected = null;
    $("status").textContent = Saboteur.status(v);
    const open = v.open_seats || [];
    $("join").textContent = open.length ? `other human seats (${open.join(", ")}) join at ${location.origin}/?join=${v.game}` : "";
    const playable = new Set(v.moves.filter((m) => m.card !== null).map((m) => m.card));
    Saboteur.drawSeats($("seats"), v);
    // a second click on the selected card clears it: the moves without a card come back
    Saboteur.drawYou($("you"), v, playable, selected, (k) => { selected = selected === k ? null : k; show(view); });
    const cells = new Map();
    const rot = $("rotate").checked;
    for (const m of selected === null ? [] : movesOf(selected)) {
      if (!m.cell || m.kind === "discard") continue;
      if (m.turns && m.rotated !== rot) continue;  // the other way round: tick or untick rotate
      const key = m.cell[0] + "," + m.cell[1];
      if (!cells.has(key)) cells.set(key, []);
      cells.get(key).push(m);
    }
    Saboteur.drawMaze($("maze"), v.maze, cells, (x, y) => {
      play(cells.get(x + "," + y)[0].index);
    });
    // the last round's final maze and result: the game already holds the next deal
    const last = $("last");
    last.innerHTML = "";
    if (v.last_round) {
      last.appendChild(Saboteur.el("h2", {}, `Round ${v.last_round.round}'s final maze`));
      const board = Saboteur.el("div", { id: "last-maze" });
      last.appendChild(board);
      Saboteur.drawMaze(board, v.last_round.maze, null, null);
      last.appendChild(Saboteur.el("pre", { id: "last-result" }, v.last_round.result));
    }
    const box = $("moves");
    box.innerHTML = "";
    if (v.game_over) box.textContent = "The game is over." + (v.recorded ? " It was recorded." : "");
    else if (v.to_act !== v.viewer) box.textContent = `Waiting for seat ${v.to_act}...`;
    else if (selected === null) box.textContent = "Your turn: choose a card from your hand (or a move below).";
    for (const m of selected === null ? v.moves.filter((q) => q.card === null) : movesOf(selected)) {
      if (m.cell && m.kind !== "discard" && m.kind !== "map") continue;  // on the maze
      const b = Saboteur.el("button", { "data-index": m.index, class: "move" }, m.text);
      b.addEventListener("click", () => play(m.index));
      box.appendChild(b);
    }
    const all = $("all");
    all.innerHTML = "";
    for (const m of v.moves) all.appendChild(Saboteur.el("option", { value: m.index }, m.text));
    $("history").textContent = v.history.join("\n");
    $("history").scrollTop = $("history").scrollHeight;
    clearTimeout(timer);
    if (!v.game_over && v.to_act !== v.viewer) timer = setTimeout(refresh, 1500);
  }
  async function refresh() {
    try { show(await api("GET", "/api/view")); $("error").textContent = ""; }
    catch (e) {
      $("error").textContent = e.message;
      clearTimeout(timer);
      timer = setTimeout(refresh, 5000);  // e.g. the server restarting: keep trying
    }
  }
  async function start() {
    const join = new URLSearchParams(location.search).get("join");
    try {
      // a reload keeps its seat: the token saved in this tab, where it still names a game
      // here (the join link's game, when there is one)
      if (token) {
        try {
          const v = await api("GET", "/api/view");
          if (!join || v.game === join) { show(v); return; }
        } catch (e) { /* the server no longer holds that token's game */ }
      }
      if (join) {
        const r = await api("POST", `/api/games/${encodeURIComponent(join)}/join`);
        setToken(r.token); show(r.view); return;
      }
      const r = await api("POST", "/api/games", {});
      setToken(r.token); show(r.view);
    } catch (e) { $("error").textContent = e.message; }
  }
  $("new").addEventListener("click", async () => {
    try { const r = await api("POST", "/api/games", {}); setToken(r.token); selected = null; show(r.view); }
    catch (e) { $("error").textContent = e.message; }
  });
  $("rotate").addEventListener("change", () => view && show(view));
  $("play").addEventListener("click", () => { const i = $("all").value; if (i !== "") play(Number(i)); });
  start();
})();
