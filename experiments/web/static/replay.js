// The replay page (saboteur replay REC --html out.html): step forward and back.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const data = JSON.parse($("replay-data").textContent);
  let i = 0;
  const last = data.steps.length - 1;
  $("slider").max = last;
  function show(k) {
    i = Math.max(0, Math.min(last, k));
    const st = data.steps[i], v = st.view;
    $("slider").value = i;
    $("step").textContent = `state ${i}/${last}`;
    $("status").textContent = Saboteur.status(v);
    $("caption").textContent =
      st.caption || (st.index === 0 ? "the deal" : `decision ${st.index}: ${st.text}`);
    Saboteur.drawMaze($("maze"), v.maze, null, null);
    Saboteur.drawSeats($("seats"), v);
    Saboteur.drawYou($("you"), v, null, null, null);
    const b = $("belief");
    if (data.belief_seats.length) Saboteur.drawBelief(b, st.belief, data.roles);
    else b.textContent = "no agent of this view has a belief()";
    $("history").textContent = data.history.filter((h) => h[0] <= st.index).map((h) => h[1]).join("\n");
    $("history").scrollTop = $("history").scrollHeight;
  }
  $("first").addEventListener("click", () => show(0));
  $("prev").addEventListener("click", () => show(i - 1));
  $("next").addEventListener("click", () => show(i + 1));
  $("last").addEventListener("click", () => show(last));
  $("slider").addEventListener("input", () => show(Number($("slider").value)));
  document.addEventListener("keydown", (e) => {
    if (e.key === "ArrowRight") show(i + 1);
    if (e.key === "ArrowLeft") show(i - 1);
  });
  show(0);
})();
