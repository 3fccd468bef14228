// saboteur-env: drawing a view dict (saboteur_experiments.web.view.view) in the browser.
// Used by the play page (play.html, saboteur serve) and inlined into replay pages.
"use strict";
const Saboteur = (function () {
  const CELL = 44;
  const SIDES = [[1, 22, 0], [2, 44, 22], [4, 22, 44], [8, 0, 22]]; // bit, x, y of the edge
  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function cardSvg(card) {
    const ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("width", CELL); svg.setAttribute("height", CELL);
    const bg = document.createElementNS(ns, "rect");
    bg.setAttribute("width", CELL); bg.setAttribute("height", CELL);
    let fill = "#d8c7a4";
    if (card.goal === "hidden") fill = card.seen ? "#6a86b8" : "#4a5a78";
    if (card.goal === "gold") fill = card.seen || card.id === "G_GOLD" ? "#e8c33a" : fill;
    if (card.goal === "stone") fill = card.seen || card.id !== "goal" ? "#9a9a9a" : fill;
    if (card.goal && card.seen) fill = card.goal === "gold" ? "#e8c33a" : "#9a9a9a";
    if (card.start) fill = "#8bc48b";
    bg.setAttribute("fill", fill);
    svg.appendChild(bg);
    for (const [mask, stub] of card.segments) {
      for (const [bit, x, y] of SIDES) {
        if (!(mask & bit)) continue;
        const line = document.createElementNS(ns, "line");
        const ex = stub ? x + (22 - x) * 0.45 : 22, ey = stub ? y + (22 - y) * 0.45 : 22;
        line.setAttribute("x1", x); line.setAttribute("y1", y);
        line.setAttribute("x2", ex); line.setAttribute("y2", ey);
        line.setAttribute("stroke", "#3b2a1a"); line.setAttribute("stroke-width", 9);
        svg.appendChild(line);
      }
    }
    const t = document.createElementNS(ns, "text");
    t.setAttribute("x", 22); t.setAttribute("y", 27); t.setAttribute("text-anchor", "middle");
    t.setAttribute("font-size", "13"); t.setAttribute("fill", card.goal ? "#fff" : "#f4efe6");
    t.setAttribute("font-weight", "bold");
    let sym = card.symbol;
    if (card.goal === "hidden") sym = card.seen ? (card.goal === "gold" ? "g" : "?") : "?";
    if (card.id === "goal" && card.seen) sym = card.goal === "gold" ? "g" : "o";
    t.textContent = sym === "+" ? "" : sym;
    svg.appendChild(t);
    const title = document.createElementNS(ns, "title");
    title.textContent = card.id + " " + card.name + (card.rotated ? " (rotated)" : "");
    svg.appendChild(title);
    return svg;
  }
  // Draw the maze of a view; legal: Map "x,y" -> list of moves (clickable cells), onCell(x, y)
  function drawMaze(container, maze, legal, onCell) {
    container.innerHTML = "";
    const [x0, x1, y0, y1] = maze.window;
    const grid = el("div", { class: "maze" });
    grid.style.gridTemplateColumns = `repeat(${x1 - x0 + 1}, ${CELL}px)`;
    for (const c of maze.cells) {
      const key = c.x + "," + c.y;
      const cell = el("div", { class: "cell", "data-x": c.x, "data-y": c.y });
      if (c.card) cell.appendChild(cardSvg(c.card));
      else cell.appendChild(el("span", { class: "coord" }, c.x + "," + c.y));
      if (legal && legal.has(key)) {
        cell.classList.add("legal");
        cell.addEventListener("click", () => onCell(c.x, c.y));
      }
      grid.appendChild(cell);
    }
    container.appendChild(grid);
  }
  function drawSeats(container, v) {
    container.innerHTML = "";
    const tab = el("table", { class: "seats" });
    const head = el("tr");
    for (const h of ["seat", "agent", "hand", "in front", "role", "gold"]) head.appendChild(el("th", {}, h));
    tab.appendChild(head);
    for (const s of v.seats) {
      const tr = el("tr");
      if (s.seat === v.to_act) tr.classList.add("to-act");
      if (s.seat === v.viewer) tr.classList.add("you");
      const front = s.broken.map((t) => "broken " + t);
      if (s.trapped) front.push("trapped");
      if (s.theft) front.push("theft");
      const cells = [s.seat + (s.seat === v.viewer ? " (you)" : ""), s.name, s.hand_size,
        front.join(", ") || "-", s.role || (s.inspected ? s.inspected + " (inspected)" : "?"), s.gold === null ? (s.has_gold ? "has gold" : "?") : s.gold];
      for (const c of cells) tr.appendChild(el("td", {}, String(c)));
      tab.appendChild(tr);
    }
    container.appendChild(tab);
  }
  function status(v) {
    let s = `${v.ruleset}, ${v.players} players - round ${v.round}/${v.rounds}`;
    if (v.round_over) return s + ` over - winners: ${v.winners.join(", ") || "none"}`;
    s += v.game_over ? " - game over" : ` - turn ${v.turn} - seat ${v.to_act} to act`;
    s += ` - draw pile ${v.deck} - discards ${v.discards}`;
    if (v.phase !== "turn") s += ` - phase ${v.phase}`;
    if (v.game_over) s += ` - winners: ${v.winners.join(", ")}`;
    return s;
  }
  function drawYou(container, v, playable, selected, onCard) {
    container.innerHTML = "";
    if (!v.you) {
      if (v.spectator) {
        container.appendChild(el("div", {}, "roles: " + v.spectator.roles.join(", ")));
        v.spectator.hands.forEach((h, s) => container.appendChild(el("div", {}, `seat ${s}: ${h.join(" ")}`)));
        container.appendChild(el("div", {}, "goals: " + v.spectator.goals.join(", ")));
      }
      return;
    }
    const y = v.you;
    container.appendChild(el("div", {}, `You are seat ${y.seat}, a ${y.role}; gold ${y.gold}` +
      (y.can_place_paths ? "" : " - a broken tool: you may not place path cards")));
    if (y.goals_seen.length)
      container.appendChild(el("div", {}, "Goals seen: " + y.goals_seen.map((g) => `(${g.cell}) ${g.identity}`).join(", ")));
    const hand = el("div", { class: "hand", id: "hand" });
    y.hand.forEach((c, i) => {
      const b = el("div", { class: "card", "data-kind": c.kind, "data-i": i, title: c.name }, "");
      b.appendChild(el("div", {}, c.id));
      b.appendChild(el("div", {}, c.name));
      if (playable && playable.has(c.kind)) {
        b.classList.add("playable");
        b.addEventListener("click", () => onCard(c.kind));
      }
      if (selected === c.kind) b.classList.add("selected");
      hand.appendChild(b);
    });
    container.appendChild(hand);
  }
  function drawBelief(container, belief, roles) {
    container.innerHTML = "";
    if (!belief) return;
    for (const [seat, rows] of Object.entries(belief)) {
      const tab = el("table", { class: "belief" });
      const cap = el("caption", {}, `seat ${seat}'s agent belief`);
      tab.appendChild(cap);
      const head = el("tr");
      head.appendChild(el("th", {}, "seat"));
      for (const r of roles) head.appendChild(el("th", {}, r));
      tab.appendChild(head);
      rows.forEach((row, t) => {
        const tr = el("tr");
        tr.appendChild(el("td", {}, String(t)));
        row.forEach((p) => {
          const td = el("td", {}, p.toFixed(2) + " ");
          const bar = el("span", { class: "bar" });
          bar.style.width = Math.round(p * 30) + "px";
          td.appendChild(bar);
          tr.appendChild(td);
        });
        tab.appendChild(tr);
      });
      container.appendChild(tab);
    }
  }
  return { drawMaze, drawSeats, drawYou, drawBelief, status, el };
})();
