// gpbandit run (stub).
